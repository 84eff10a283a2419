import { memoryBackend } from './test-support/backends.js';
import { STORED_LAYOUT_SCHEMA } from './test-support/stored-layout-schema.js';
import { validateOn } from './test-support/validation-suite.js';
validateOn(memoryBackend, { shapes: [{ streams: 'langgraph:*', schema: STORED_LAYOUT_SCHEMA }] });
