import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// `npm run dev` proxies the API to a gnomond on GNOMON_HTTP (default 127.0.0.1:7080).
const target = process.env.GNOMON_HTTP ?? 'http://127.0.0.1:7080';

export default defineConfig({
  plugins: [react()],
  server: { proxy: { '/v1': target, '/openapi.json': target } },
  build: { outDir: 'dist', chunkSizeWarningLimit: 1000 },
});
