// The scripts' preloads go at a low priority, so that a slow link gives the stylesheet, which the
// first paint waits for, its bandwidth first (issue 30). The document as React writes it.
import { describe, expect, it } from "vitest";
import { lowerScriptPriority } from "./entry.server";

describe("lowerScriptPriority", () => {
  it("marks every modulepreload link low, and nothing else", () => {
    const head =
      '<link rel="stylesheet" href="/assets/app.css" data-precedence="default"/>' +
      '<link rel="modulepreload" href="/assets/entry.client.js" nonce="n"/>' +
      '<link rel="modulepreload" href="/assets/root.js" nonce="n"/>';
    expect(lowerScriptPriority(head)).toBe(
      '<link rel="stylesheet" href="/assets/app.css" data-precedence="default"/>' +
        '<link rel="modulepreload" fetchpriority="low" href="/assets/entry.client.js" nonce="n"/>' +
        '<link rel="modulepreload" fetchpriority="low" href="/assets/root.js" nonce="n"/>',
    );
  });
});
