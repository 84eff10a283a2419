/**
 * The model seam of the step runner: one chat completion per call
 * (slates README "API": complete(request) → string).
 */

/** One chat message. */
export interface ModelMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What the runner asks a model for: the step's prompt, fields and any retrieval context. */
export interface ModelRequest {
  /** `messages[0]` is the step's systemPrompt (role `system`) when the step has one. */
  messages: ModelMessage[];
  /** Step id, 0-based node index and 1-based retrieval round, for logs and scripted replay. */
  step: string;
  node: number;
  round: number;
}

/** A model: returns the assistant's text for a request. */
export interface Model {
  /**
   * @throws MODEL_UNAVAILABLE when the model cannot be reached or is not configured;
   * MODEL_FAILED when it answered with an error or an unusable response
   */
  complete(request: ModelRequest): Promise<string>;
}
