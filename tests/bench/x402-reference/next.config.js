import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The app lives inside the project's tree; its own folder is its root, not the project's.
const root = path.dirname(fileURLToPath(import.meta.url));

const config = { turbopack: { root }, outputFileTracingRoot: root };

export default config;
