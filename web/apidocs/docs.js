// The API reference page (GET /docs): Scalar's renderer, served by the
// gateway from its binary (scalar/standalone.js, loaded after this script),
// on the gateway's own OpenAPI document. Everything that would reach another
// host is off: the default fonts (fonts.scalar.com), telemetry, the API
// client and its request proxy (proxy.scalar.com), the AI agent, MCP and the
// developer tools (Scalar's registry and dashboard). The page's
// Content-Security-Policy would refuse them anyway; the browser test fails
// on any such request.

// Zod (bundled in the renderer) probes whether it may compile validators
// with Function(), which the policy refuses (no 'unsafe-eval'); set before
// the renderer loads, its global setting skips the probe.
globalThis.__zod_globalConfig = { jitless: true };

// The document's address is in data-openapi-url (the renderer reads a
// data-spec attribute itself, as a document's text).
document.addEventListener("DOMContentLoaded", function () {
  var app = document.getElementById("app");
  window.Scalar.createApiReference(app, {
    url: app.getAttribute("data-openapi-url"),
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: true,
    hideTestRequestButton: true,
    showDeveloperTools: "never",
    agent: { disabled: true },
    mcp: { disabled: true },
    documentDownloadType: "json",
    // The sidebar lists a tag's entries by their titles, the operations'
    // paths (the document's summaries), in alphabetical order: a module's
    // queries and mutations together, as docs/api.md lists them.
    operationsSorter: "alpha",
  });
});
