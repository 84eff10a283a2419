import { describe, it } from 'vitest';
import { classicLevelInitializer, runConformance } from '@stateflow/conformance';

runConformance(classicLevelInitializer(), { describe, it });
