import { Kind } from './fuzz'

/**
 * How many requests the fuzz tests send and from which seed: fixed in `npm test`, set by
 * FUZZ_RUNS / FUZZ_SEED (a number or `random`) in `npm run fuzz`, and FUZZ_REPLAY / FUZZ_PATH to
 * replay one failure. docs/testing.md#fuzzing
 */

export interface FuzzSettings {
    seed: number
    runs: number
    replay?: { kind: Kind; operation: string; path?: string }
    /** `npm run fuzz`: the tests print what each operation was answered. */
    verbose: boolean
    /** For mocha: bounded in `npm test`, none in `npm run fuzz` (every request has its own timeout). */
    testTimeoutMs: number
}

export function fuzzSettings(defaults: { seed: number; runs: number }, env: NodeJS.ProcessEnv = process.env): FuzzSettings {
    const seed = env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : env.FUZZ_SEED ? integer('FUZZ_SEED', env.FUZZ_SEED) : defaults.seed
    const runs = env.FUZZ_RUNS ? integer('FUZZ_RUNS', env.FUZZ_RUNS) : defaults.runs
    let replay: FuzzSettings['replay']
    if (env.FUZZ_REPLAY) {
        const m = /^(valid|invalid) ([A-Z]+ \S+)$/.exec(env.FUZZ_REPLAY)
        if (!m) throw new Error(`FUZZ_REPLAY is "<valid|invalid> <METHOD> <path>", not ${env.FUZZ_REPLAY}`)
        replay = { kind: m[1] as Kind, operation: m[2], path: env.FUZZ_PATH || undefined }
    }
    if (env.FUZZ_SEED || env.FUZZ_RUNS) console.log(`fuzz: seed ${seed}, ${runs} requests per operation and kind`)
    return { seed, runs, replay, verbose: Boolean(env.FUZZ_RUNS), testTimeoutMs: env.FUZZ_RUNS ? 0 : 600_000 }
}

function integer(name: string, value: string): number {
    if (!/^-?\d+$/.test(value)) throw new Error(`${name} must be an integer, not ${value}`)
    return Number(value)
}
