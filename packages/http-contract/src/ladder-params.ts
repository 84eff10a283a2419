/** The path parameters of the ladder routes (`/v1/{author}/{ladder}/…`). */
import { Type } from '@sinclair/typebox';

/** Path parameters of every ladder route: `/v1/{author}/{ladder}/…`. */
export const ladderParams = Type.Object({
  author: Type.String({ pattern: '^@?[A-Za-z0-9][A-Za-z0-9_.-]*$', description: 'Ladder author (`alice` or `@alice`)' }),
  ladder: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$', description: 'Ladder name' }),
});

/** Path parameters of session routes: the ladder's plus `{id}`. */
export const sessionParams = Type.Object({ ...ladderParams.properties, id: Type.String({ minLength: 1 }) });
