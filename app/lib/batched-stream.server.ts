// React writes a document in many pieces (a few KB each, and every long string on its own) and
// calls `flush()` on its destination once it has written all it has. Every piece that leaves the
// server costs the same whatever its size in the streams after this one (the web stream of the
// Response, compression, the socket), so this passes each of React's batches on as one chunk:
// a whole page rendered at once is one chunk.
//
// React hands a long string (a prerendered part's HTML, see prerender.server.tsx) over as it is;
// the bytes of the ones given to the constructor were encoded once, when they were rendered, and
// are taken as they are rather than encoded again for every page.
//
// The first batch (the shell, with the whole <head>) may be rewritten once on its way out
// (`rewriteShell`): see deferScriptsPastFirstPaint in entry.server.tsx.
import { Transform, type TransformCallback } from "node:stream";
import type { PrerenderedPart } from "./prerender.server";

export class BatchedStream extends Transform {
  #pending: Buffer[] = [];
  readonly #onEnd: () => void;
  readonly #encoded: ReadonlyMap<string, Buffer>;
  #rewriteShell: ((html: Buffer) => Buffer) | undefined;

  /**
   * `onEnd` runs once everything has been passed on; `encoded`, parts whose bytes to take;
   * `rewriteShell`, applied to the first batch's bytes.
   */
  constructor(onEnd: () => void = () => {}, encoded: Iterable<PrerenderedPart> = [], rewriteShell?: (html: Buffer) => Buffer) {
    super({ decodeStrings: false });
    this.#onEnd = onEnd;
    this.#encoded = new Map(Array.from(encoded, ({ html, bytes }) => [html, bytes]));
    this.#rewriteShell = rewriteShell;
  }

  override _transform(chunk: Buffer | string, encoding: BufferEncoding, callback: TransformCallback) {
    this.#pending.push(typeof chunk === "string" ? (this.#encoded.get(chunk) ?? Buffer.from(chunk, encoding)) : chunk);
    callback();
  }

  /** Called by React after each batch it writes. */
  flush() {
    if (this.#pending.length === 0) return;
    let batch = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending);
    if (this.#rewriteShell) {
      batch = this.#rewriteShell(batch);
      this.#rewriteShell = undefined;
    }
    this.push(batch);
    this.#pending = [];
  }

  override _flush(callback: TransformCallback) {
    this.flush();
    this.#onEnd();
    callback();
  }
}
