// Lint and layout rules for the codebase as it is written: docs/testing.md#lint-and-layout
import js from '@eslint/js'
import stylistic from '@stylistic/eslint-plugin'
import globals from 'globals'
import { defineConfig } from 'eslint/config'
import tseslint from 'typescript-eslint'

export default defineConfig(
    { ignores: ['lib/**', 'model/generated/**', 'abi/**', 'db/migrations/**', 'test-output/**', 'bench/.cache/**', '.data/**', 'bench/peers/**'] },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    {
        languageOptions: { globals: globals.node },
        plugins: { '@stylistic': stylistic },
        rules: {
            // Layout: what every file already does, mended by `npm run lint:fix`.
            '@stylistic/indent': ['error', 4, { SwitchCase: 1 }],
            '@stylistic/quotes': ['error', 'single', { avoidEscape: true, allowTemplateLiterals: 'always' }],
            '@stylistic/semi': ['error', 'never'],
            '@stylistic/comma-dangle': ['error', { arrays: 'always-multiline', objects: 'always-multiline', imports: 'always-multiline', exports: 'always-multiline', functions: 'only-multiline' }],
            '@stylistic/no-trailing-spaces': 'error',
            '@stylistic/eol-last': 'error',
            '@stylistic/no-multiple-empty-lines': ['error', { max: 1, maxEOF: 0 }],
            '@stylistic/no-tabs': 'error',
            '@stylistic/comma-spacing': 'error',
            '@stylistic/key-spacing': 'error',
            '@stylistic/keyword-spacing': 'error',
            '@stylistic/space-before-blocks': 'error',
            '@stylistic/space-infix-ops': 'error',
            '@stylistic/arrow-spacing': 'error',
            '@stylistic/brace-style': ['error', '1tbs', { allowSingleLine: true }],
            '@stylistic/arrow-parens': ['error', 'always'],
            // A leading underscore names what is deliberately unused (an omitted field, a required parameter).
            '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true }],
            // `any` stays where untyped JSON or an untyped library meets our code (RPC answers, tronweb, pg rows); strict mode covers the rest.
            '@typescript-eslint/no-explicit-any': 'off',
            // Our only control characters in patterns are the ones we refuse in input.
            'no-control-regex': 'off',
        },
    },
    {
        // The swap page's scripts run in the browser.
        files: ['bridge/http/page/assets/**/*.js'],
        languageOptions: { globals: globals.browser, sourceType: 'script' },
    },
    {
        // Tests, benchmarks and the devnet read JSON answers whose shape the assertions check.
        // chai's property assertions (`expect(x).to.be.true`) are expressions.
        files: ['test/**'],
        rules: { '@typescript-eslint/no-unused-expressions': 'off' },
    },
    {
        files: ['**/*.cjs'],
        rules: { '@typescript-eslint/no-require-imports': 'off' },
    },
)
