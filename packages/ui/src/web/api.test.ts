import { describe, expect, it } from 'vitest';
import { query, serverSentEvents } from './api.js';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe('serverSentEvents', () => {
  it('parses events split anywhere across chunks, CRLF lines, comments and multi-line data', async () => {
    const text = ': heartbeat\r\nevent: ready\r\nid: 5\r\ndata: {"from":5}\r\n\r\nevent: transition\nid: 6\ndata: {"seq":\ndata: 6}\n\n';
    for (const size of [1, 3, 7, text.length]) {
      const chunks = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      const events = [];
      for await (const event of serverSentEvents(streamOf(chunks))) events.push(event);
      expect(events).toEqual([
        { id: '5', event: 'ready', data: '{"from":5}' },
        { id: '6', event: 'transition', data: '{"seq":\n6}' },
      ]);
    }
  });

  it('decodes a multi-byte character split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: "é"\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 8));
        controller.enqueue(bytes.slice(8));
        controller.close();
      },
    });
    const events = [];
    for await (const event of serverSentEvents(stream)) events.push(event);
    expect(events).toEqual([{ data: '"é"' }]);
  });
});

describe('query', () => {
  it('leaves out undefined and null parameters and encodes the rest', () => {
    expect(query({ stream: 'cwd:/a b', rev: 3, seq: undefined, x: null, global: true })).toBe('?stream=cwd%3A%2Fa+b&rev=3&global=true');
    expect(query({})).toBe('');
  });
});
