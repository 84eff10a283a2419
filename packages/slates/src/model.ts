/**
 * The model seam of the step runner: one chat completion per call, its token usage when the
 * model reports it, and its text as it is generated when the caller streams (slates README "API").
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

/** Token counts of model calls, as OpenAI-compatible APIs report them (`usage`), in tokens. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** A model's answer: its text and, when the model reports them, the call's token counts. */
export interface ModelCompletion {
  content: string;
  /** Absent when the model does not say; the run's usage is then unknown. */
  usage?: TokenUsage;
}

/** Options of one {@link Model.complete} call. */
export interface CompleteOptions {
  /**
   * Set when the caller streams this call's answer: receives the text as it is generated, in
   * order. The pieces must join to the returned `content` exactly; a model that cannot stream
   * may ignore it (the runner then forwards the whole answer when it arrives).
   */
  onDelta?: (text: string) => void;
}

/** A model: answers a request with the assistant's text (and, ideally, its token usage). */
export interface Model {
  /**
   * A plain string answer is a completion of unknown usage.
   * @throws MODEL_UNAVAILABLE when the model cannot be reached or is not configured;
   * MODEL_FAILED when it answered with an error or an unusable response
   */
  complete(request: ModelRequest, options?: CompleteOptions): Promise<string | ModelCompletion>;
}
