import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** `npm run dev:ui` proxies the API to a running `sandboard serve` (SANDBOARD_URL, default :8080). */
const target = process.env.SANDBOARD_URL ?? 'http://127.0.0.1:8080';
const proxy = { target, changeOrigin: true };

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // inline nothing as data: URLs except images (the CSP allows img-src data: only)
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 800,
  },
  server: {
    host: '127.0.0.1',
    proxy: {
      '/api/sandboard/ws': { ...proxy, ws: true },
      '/api/ws': { ...proxy, ws: true },
      '/api': proxy,
      '/swagger-ui': proxy,
      '/v3': proxy,
    },
  },
});
