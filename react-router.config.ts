import type { Config } from "@react-router/dev/config";

export default {
  // Server-side rendering: every page is complete HTML, usable without JavaScript.
  ssr: true,
} satisfies Config;
