/** hintlab's version, recorded with every run. Keep in step with package.json. */
export const VERSION = '0.1.0';
