// ESLint looks up the config nearest to each file: the renderer uses the project's rules, plus browser
// globals, and skips Vite's build output (renderer/dist).
import globals from 'globals';
import root from '../eslint.config.js';

export default [{ ignores: ['dist/**'] }, ...root, { languageOptions: { globals: { ...globals.browser } } }];
