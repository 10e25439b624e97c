import tseslint from 'typescript-eslint';
export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-output/**'] },
  ...tseslint.configs.strictTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  {
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // A property destructured away to keep the rest (`const { probe: _probe, ...rest } = env`) is how a field is dropped.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true, argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Every number is written by src/format/ (docs/architecture.md): a figure's decimals are decided in one place.
    files: ['src/**/*.ts'],
    ignores: ['src/format/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['toFixed', 'toPrecision', 'toExponential'].map((name) => ({
          selector: `CallExpression[callee.property.name='${name}']`,
          message: `${name}() is called only in src/format/: use fixed(), significant(), scientific(), roundTo() or a format/durations.ts function there (add one if none fits)`,
        })),
      ],
    },
  },
  {
    // node:test's test() and describe() return promises the runner itself awaits.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] }],
      // A fake implements an async contract (Target.boot, Accel choice) by returning at once.
      '@typescript-eslint/require-await': 'off',
      // Tests read the program's own JSON output back (JSON.parse gives any) and check its shape with
      // assert, field by field: the shape is what they test, so declaring it first would restate the type under test.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The .mjs entries run as plain JavaScript (spawned by path, outside the TypeScript project),
    // so they get the syntax rules only.
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
