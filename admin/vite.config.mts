import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

/**
 * The admin console and the offline GraphiQL page (issue 20), built into dist/admin/, which toolcat serves at
 * /admin/ (src/http/admin-console.ts). Two pages, one React; no inline script, so the strict CSP holds.
 */
export default defineConfig({
  root: here('.'),
  base: '/admin/',
  plugins: [react()],
  build: {
    outDir: here('../dist/admin'),
    emptyOutDir: true,
    // The CSP forbids inline scripts: never inline the module preload polyfill or small assets as data: scripts.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    // GraphiQL (with CodeMirror and graphql-js) is one ~770 kB chunk, loaded only by the /graphql page.
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      input: { index: here('index.html'), graphiql: here('graphiql.html') },
      // react-compiler-runtime (a GraphiQL dependency) starts with "use no memo", which the bundler notes and drops.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
