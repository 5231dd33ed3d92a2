// The scripts wait for the first paint (issue 30): the shell as React Router and React write it.
import { describe, expect, it } from "vitest";
import { deferScriptsPastFirstPaint } from "./entry.server";

const SHELL =
  '<head><link rel="stylesheet" href="/assets/app.css" data-precedence="default"/>' +
  '<link rel="modulepreload" href="/assets/entry.client.js" nonce="n1"/>' +
  '<link rel="modulepreload" href="/assets/root.js" nonce="n1"/></head>' +
  '<body><main>Pagina</main><script nonce="n1">window.__reactRouterContext = {};</script>' +
  '<script nonce="n1" type="module" async="">;\nimport * as route0 from "/assets/root.js";\nimport("/assets/entry.client.js");</script></body>';

describe("deferScriptsPastFirstPaint", () => {
  const deferred = deferScriptsPastFirstPaint(Buffer.from(SHELL)).toString();

  it("leaves the stylesheet alone in the head: no module is asked for before the first paint", () => {
    expect(deferred).not.toContain('<link rel="modulepreload"');
    expect(deferred).not.toMatch(/<script[^>]*type="module"/);
    expect(deferred).toContain('<head><link rel="stylesheet" href="/assets/app.css" data-precedence="default"/></head>');
  });

  it("keeps the module script as text, and starts it and its modules after the first paint, with the page's nonce", () => {
    expect(deferred).toContain(
      '<script nonce="n1" type="text/plain" id="avvio-script">;\nimport * as route0 from "/assets/root.js";\nimport("/assets/entry.client.js");</script>',
    );
    const start = deferred.slice(deferred.lastIndexOf('<script nonce="n1">'));
    expect(start).toMatch(/^<script nonce="n1">requestAnimationFrame\(function\(\)\{setTimeout\(/);
    expect(start).toContain('["/assets/entry.client.js","/assets/root.js"].forEach(');
    // The other scripts (the router's context) are as they were.
    expect(deferred).toContain('<script nonce="n1">window.__reactRouterContext = {};</script>');
  });

  it("leaves a shell it does not recognise as it is", () => {
    const other = '<head><link rel="stylesheet" href="/a.css"/></head><body><script src="/x.js"></script></body>';
    expect(deferScriptsPastFirstPaint(Buffer.from(other)).toString()).toBe(other);
  });
});
