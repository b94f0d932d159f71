/**
 * A compile thread of the verification pool (compile-pool.ts): solc-js is synchronous and can run
 * for seconds, so it never runs on the API's event loop. Each loaded compiler is kept for the
 * thread's life, since loading one costs more than most compiles.
 */
import { parentPort } from 'worker_threads'

// solc's wrapper has no types for a compiler loaded from a path.
const wrapper = require('solc/wrapper') as (soljson: unknown) => { compile(input: string): string; version(): string }

export interface CompileTask {
    id: number
    /** a soljson.js build */
    soljson: string
    /** standard JSON input; absent: answer the build's version */
    input?: string
}

export type CompileAnswer = { id: number; output: string } | { id: number; error: string }

const loaded = new Map<string, ReturnType<typeof wrapper>>()

function compiler(soljson: string) {
    let solc = loaded.get(soljson)
    if (!solc) {
        solc = wrapper(require(soljson))
        loaded.set(soljson, solc)
    }
    return solc
}

parentPort!.on('message', (task: CompileTask) => {
    let answer: CompileAnswer
    try {
        const solc = compiler(task.soljson)
        answer = { id: task.id, output: task.input === undefined ? solc.version() : solc.compile(task.input) }
    } catch (err) {
        answer = { id: task.id, error: err instanceof Error ? err.message : String(err) }
    }
    parentPort!.postMessage(answer)
})
