// React writes a document in many pieces (a few KB each, and every long string on its own) and
// calls `flush()` on its destination once it has written all it has. Every piece that leaves the
// server costs the same whatever its size in the streams after this one (the web stream of the
// Response, compression, the socket), so this passes each of React's batches on as one chunk:
// a whole page rendered at once is one chunk.
import { Transform, type TransformCallback } from "node:stream";

export class BatchedStream extends Transform {
  #pending: Buffer[] = [];
  readonly #onEnd: () => void;

  /** `onEnd` runs once everything has been passed on. */
  constructor(onEnd: () => void = () => {}) {
    super();
    this.#onEnd = onEnd;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
    this.#pending.push(chunk);
    callback();
  }

  /** Called by React after each batch it writes. */
  flush() {
    if (this.#pending.length === 0) return;
    this.push(this.#pending.length === 1 ? this.#pending[0] : Buffer.concat(this.#pending));
    this.#pending = [];
  }

  override _flush(callback: TransformCallback) {
    this.flush();
    this.#onEnd();
    callback();
  }
}
