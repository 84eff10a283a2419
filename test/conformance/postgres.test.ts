import { describe, it } from 'vitest';
import { postgresInitializer, runConformance } from '@stateflow/conformance';
import { testPostgres } from '@stateflow/test-kit';

runConformance(postgresInitializer(await testPostgres()), { describe, it });
