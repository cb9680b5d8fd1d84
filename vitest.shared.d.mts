import type { UserConfig } from 'vitest/config';

/** The shared vitest configuration (see vitest.shared.mjs). */
declare const config: UserConfig;
export default config;
