import type { Rule } from "eslint";

/** The project's own ESLint plugin (layers.js): its one rule, `layers`. */
declare const plugin: { rules: { layers: Rule.RuleModule } };
export default plugin;
