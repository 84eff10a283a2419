/**
 * The fastify app as the routes see it: each route is registered from its contract
 * (`@stateflow/http-contract`), and TypeBox's type provider types its request (params, query,
 * headers, body) and checks what its handler returns against the contract's responses.
 */
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';

/** The app with its routes' types taken from their contracts. */
export type ContractApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;
