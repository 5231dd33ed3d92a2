import { describe, expect, it } from "vitest";
import { BatchedStream } from "./batched-stream.server";

function collect(stream: BatchedStream) {
  const chunks: string[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
  return chunks;
}

describe("BatchedStream", () => {
  it("passes what was written between two flushes on as one chunk", async () => {
    const stream = new BatchedStream();
    const chunks = collect(stream);
    stream.write("<html>");
    stream.write(Buffer.from("<body>è"));
    stream.write("</body>");
    stream.flush();
    stream.flush(); // nothing pending: nothing sent
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual(["<html><body>è</body>"]);
  });

  it("passes the rest on at the end, then says it has ended", async () => {
    let ended = 0;
    const stream = new BatchedStream(() => ended++);
    const chunks = collect(stream);
    stream.write("a");
    stream.flush();
    stream.write("b");
    stream.write("c");
    await new Promise((resolve) => stream.end(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual(["a", "bc"]);
    expect(ended).toBe(1);
  });

  it("takes the bytes of a text it was given instead of encoding the text again", async () => {
    const part = "<ul>".padEnd(2000, "x") + "</ul>";
    // Bytes that differ from the text's own, to see which were sent.
    const stream = new BatchedStream(undefined, [{ html: part, bytes: Buffer.from("<ul>già codificato</ul>") }]);
    const chunks = collect(stream);
    stream.write("<main>");
    stream.write(part);
    stream.write("<p>è</p></main>");
    stream.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual(["<main><ul>già codificato</ul><p>è</p></main>"]);
  });

  it("rewrites the first batch only, the shell with its head", async () => {
    const stream = new BatchedStream(undefined, [], (html) => Buffer.from(html.toString().toUpperCase()));
    const chunks = collect(stream);
    stream.write("<head>è");
    stream.write("</head>");
    stream.flush();
    stream.write("<p>dopo</p>");
    stream.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual(["<HEAD>È</HEAD>", "<p>dopo</p>"]);
  });
});
