import { postgresBackend } from './test-support/backends.js';
import { validateOn } from './test-support/validation-suite.js';
validateOn(await postgresBackend());
