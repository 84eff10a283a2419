import { describe, it } from 'vitest';
import { memoryInitializer, runConformance } from '@stateflow/conformance';

runConformance(memoryInitializer(), { describe, it });
