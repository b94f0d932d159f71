/**
 * A compile process of the verification pool (compile-pool.ts). solc-js is synchronous, can run
 * for seconds and can grow its WebAssembly memory to gigabytes on a short source, so it runs in a
 * process of its own whose memory the pool caps (V8 flags, and a kill past VmRSS) and which it can
 * kill. Tasks come as JSON lines on stdin; answers go as JSON lines on fd 3, so stdout stays free
 * for whatever a compiler build prints.
 *
 * The compiler's raw output is checked against its cap and parsed here, never in the API: only
 * what verification reads of each contract travels back, so the answer is no larger than the
 * output the cap admitted.
 */
import * as net from 'net'
import * as readline from 'readline'
import type { ImmutableReferences } from './bytecode'
import type { CompileAnswer, CompileTask, CompiledContract, CompilerError } from './compile-pool'

// solc's wrapper has no types for a compiler loaded from a path.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- untyped module
const wrapper = require('solc/wrapper') as (soljson: unknown) => { compile(input: string): string; version(): string }

const answers = new net.Socket({ fd: 3, readable: false, writable: true })

// Each loaded compiler is kept for the process's life: loading one costs more than most compiles.
const loaded = new Map<string, ReturnType<typeof wrapper>>()

function compiler(soljson: string) {
    let solc = loaded.get(soljson)
    if (!solc) {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a compiler build named at run time
        solc = wrapper(require(soljson))
        loaded.set(soljson, solc)
    }
    return solc
}

/** A whole log of warnings is no reason: the errors alone, a few of them, are. */
const MAX_ERRORS = 10

interface RawOutput {
    errors?: CompilerError[]
    contracts?: Record<string, Record<string, {
        abi?: unknown[]
        metadata?: string
        evm?: { bytecode?: { object?: string }; deployedBytecode?: { object?: string; immutableReferences?: ImmutableReferences } }
    }>>
}

function compile(task: CompileTask & { input: string }): CompileAnswer {
    const raw = compiler(task.soljson).compile(task.input)
    const bytes = Buffer.byteLength(raw)
    if (bytes > task.outputMaxBytes) {
        return { id: task.id, error: `the compiler's output (${mb(bytes)} MB) exceeded its cap of ${mb(task.outputMaxBytes)} MB (VERIFIER_OUTPUT_MAX_MB)` }
    }
    const output = JSON.parse(raw) as RawOutput
    const errors = (output.errors ?? []).filter((e) => e.severity === 'error').slice(0, MAX_ERRORS)
        .map(({ severity, message, formattedMessage }) => ({ severity, message, formattedMessage }))
    const contracts: Record<string, Record<string, CompiledContract>> = {}
    for (const [file, byName] of Object.entries(output.contracts ?? {})) {
        for (const [name, c] of Object.entries(byName)) {
            (contracts[file] ??= {})[name] = {
                abi: c.abi ?? [],
                metadata: c.metadata,
                evm: {
                    bytecode: { object: c.evm?.bytecode?.object ?? '' },
                    deployedBytecode: { object: c.evm?.deployedBytecode?.object ?? '', immutableReferences: c.evm?.deployedBytecode?.immutableReferences },
                },
            }
        }
    }
    return { id: task.id, output: { errors, contracts } }
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024 * 10) / 10

readline.createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
    let answer: CompileAnswer
    let id = 0
    try {
        const task = JSON.parse(line) as CompileTask
        id = task.id
        answer = task.input === undefined ? { id, version: compiler(task.soljson).version() } : compile({ ...task, input: task.input })
    } catch (err) {
        answer = { id, error: err instanceof Error ? err.message : String(err) }
    }
    answers.write(`${JSON.stringify(answer)}\n`)
}).on('close', () => process.exit(0))
