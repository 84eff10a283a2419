/**
 * Streaming a step's nodes as the run's output joins them: node 0's text, then the separator and
 * node 1's, and so on. The nodes run in parallel, so a node's text is held until every node before
 * it has finished; node 0's (and then each next one's) is forwarded as it arrives.
 */

/** Orders the live text of `nodes` parallel nodes into one stream. */
export class NodeOutputOrder {
  readonly #sink: (text: string) => void;
  readonly #separator: string;
  readonly #held: string[];
  readonly #finished: boolean[];
  /** The node whose text is forwarded live; every node before it has finished. */
  #current = 0;

  /**
   * @param nodes - number of nodes (≥ 1).
   * @param separator - text between two nodes' outputs (the run's `"\n\n"`).
   * @param sink - receives the text in output order.
   */
  constructor(nodes: number, separator: string, sink: (text: string) => void) {
    this.#sink = sink;
    this.#separator = separator;
    this.#held = Array.from({ length: nodes }, () => '');
    this.#finished = Array.from({ length: nodes }, () => false);
  }

  /** A piece of node `node`'s text, in order. */
  delta(node: number, text: string): void {
    if (node === this.#current) this.#sink(text);
    else this.#held[node] += text;
  }

  /** Node `node` has finished: forward the next nodes' held text, up to the first unfinished one. */
  finish(node: number): void {
    this.#finished[node] = true;
    while (this.#finished[this.#current] === true && this.#current + 1 < this.#finished.length) {
      this.#current += 1;
      const held = this.#held[this.#current] ?? '';
      this.#held[this.#current] = '';
      this.#sink(this.#separator + held);
    }
  }
}
