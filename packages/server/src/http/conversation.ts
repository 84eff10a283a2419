/**
 * What a chat request gives the ladder: the conversation as the ladder's input sources
 * `input.context`, `input.messages` and `input.system` (a decision of this server; the slates
 * README lists them beside the other field sources).
 */
import { StateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';

/** One message of a chat request, as the OpenAI API sends it (text parts only). */
export interface RequestMessage {
  role: string;
  content?: string | Array<{ type: 'text'; text: string }> | null;
}

/** One earlier turn, as a ladder reads it from `input.messages`. */
export interface ConversationTurn extends JsonObject {
  role: string;
  content: string;
}

/**
 * The ladder input of one chat request.
 * - `context`: the text of the last `user` message (the question being asked).
 * - `messages`: every message before it that is not `system` or `developer`, in order, as
 *   `{ role, content }` with the content as text (several text parts joined with a newline;
 *   `null`, as in an assistant message that only called tools, is `""`). A text field reading
 *   it gets the JSON array.
 * - `system`: the text of every `system` and `developer` message, in order, joined with a blank
 *   line; `""` when there is none. Messages after the last user message are not read.
 */
export interface ConversationInput extends JsonObject {
  context: string;
  messages: ConversationTurn[];
  system: string;
}

const INSTRUCTION_ROLES = new Set(['system', 'developer']);

/**
 * The ladder input of a chat request's `messages`.
 * @throws INPUT_INVALID `{ field: 'messages' }` when there is no user message.
 */
export function conversationInput(messages: readonly RequestMessage[]): ConversationInput {
  const last = messages.findLastIndex((message) => message.role === 'user');
  if (last < 0) {
    throw new StateflowError('INPUT_INVALID', 'messages has no user message; the last user message is the ladder input (input.context)', {
      field: 'messages',
    });
  }
  const system: string[] = [];
  const turns: ConversationTurn[] = [];
  for (const message of messages.slice(0, last)) {
    if (INSTRUCTION_ROLES.has(message.role)) system.push(text(message));
    else turns.push({ role: message.role, content: text(message) });
  }
  return { context: text(messages[last] as RequestMessage), messages: turns, system: system.join('\n\n') };
}

function text(message: RequestMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => part.text).join('\n');
  return '';
}

/**
 * The input a paused call recorded with its execution state (`{ context, messages, system,
 * model }`), to run the call again after a restart; members it lacks are empty.
 */
export function recordedInput(call: JsonObject): ConversationInput {
  const turns = Array.isArray(call.messages) ? call.messages : [];
  return {
    context: typeof call.context === 'string' ? call.context : '',
    messages: turns.filter((t): t is ConversationTurn => typeof t === 'object' && t !== null && !Array.isArray(t) && typeof t.role === 'string' && typeof t.content === 'string'),
    system: typeof call.system === 'string' ? call.system : '',
  };
}
