import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import layers from "./eslint/layers.js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "build/",
      "data/",
      ".react-router/",
      "node_modules/",
      "test-results/",
      "playwright-report/",
      "server/db/migrations/",
      ".scratch/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
    },
  },
  {
    // The seam (DESIGN.md): the portal reaches the services only through the context; what both
    // sides need and is pure lives in shared/. The portal may import shared/ and types from
    // server/; server/ never imports app/.
    files: ["app/**/*.{ts,tsx}"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/server/**", "\\#server/**", "pg", "@electric-sql/pglite", "drizzle-orm", "drizzle-orm/*"],
              message:
                "The portal reaches the services through context.get(servicesContext); pure code both sides need lives in shared/.",
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    // The server's layers (docs/architecture.md): imports point down, never up or at a door.
    files: ["server/**/*.ts"],
    ignores: ["server/**/*.test.ts"],
    plugins: { project: layers },
    rules: { "project/layers": "error" },
  },
  {
    files: ["server/**/*.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/app/**", "**/app", "\\#app/**"],
              message: "The services never import the portal; shared code lives in shared/.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["shared/**/*.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["**/app/**", "**/app", "\\#app/**"], message: "shared/ imports neither side." },
            {
              group: ["**/server/**", "\\#server/**"],
              message: "shared/ imports neither side (types only).",
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
);
