import { ChildProcess, spawn } from 'child_process'
import * as fs from 'fs'
import * as path from 'path'
import { Readable, Writable } from 'stream'
import { WorkPool } from '../../../common/work-pool'
import type { ImmutableReferences } from './bytecode'

/** A contract as the compile process hands it back: what verification reads, nothing more. */
export interface CompiledContract {
    abi: unknown[]
    /** solc's metadata JSON, as the raw string the compiler wrote */
    metadata?: string
    evm: {
        bytecode: { object: string }
        deployedBytecode: { object: string; immutableReferences?: ImmutableReferences }
    }
}

export interface CompilerError { severity: string; message: string; formattedMessage?: string }

/** The compiler's output, reduced by the compile process to its errors and the contracts selected. */
export interface CompilerOutput {
    errors: CompilerError[]
    contracts: Record<string, Record<string, CompiledContract>>
}

export interface CompileTask {
    id: number
    /** a soljson.js build */
    soljson: string
    /** standard JSON input; absent: answer the build's version */
    input?: string
    outputMaxBytes: number
}

export type CompileAnswer = { id: number; output: CompilerOutput } | { id: number; version: string } | { id: number; error: string }

export interface CompilePoolOptions {
    /** compiles at once, each in a process of its own */
    processes: number
    timeoutMs: number
    /** a compile process's memory: its WebAssembly and JavaScript heap are capped to it, and it is killed past it (VmRSS) */
    memoryMb: number
    /** the compiler's raw output is refused past this, before anything parses it */
    outputMaxBytes: number
    idleMs?: number
}

/** How often a running compile's resident memory is read: a compile grows by at most a few hundred MB in this time. */
const RSS_POLL_MS = 100

/**
 * At most one compile per process, as many processes as configured; the rest wait in order (the
 * verification service bounds how many it admits). Nothing of a compile runs in the API's process:
 * a compile that runs past its time or memory is killed (solc-js cannot be interrupted otherwise),
 * and what it answers is read up to a bound. Idle processes are ended too, since each holds its
 * loaded compilers' memory.
 */
export class CompilePool {
    private readonly idle: CompileProcess[] = []
    private readonly all = new Set<CompileProcess>()
    /** A slot per process; the queue is unbounded here since the service bounds what it admits. */
    private readonly slots: WorkPool
    private readonly idleTimers = new Map<CompileProcess, NodeJS.Timeout>()
    private nextId = 1
    private closed = false

    constructor(private readonly options: CompilePoolOptions) {
        this.slots = new WorkPool({ concurrency: options.processes, queue: Infinity })
    }

    /** The compiler's output for a standard JSON input, reduced to what verification reads. */
    async compile(soljson: string, input: string): Promise<CompilerOutput> {
        const answer = await this.run({ soljson, input })
        if (!('output' in answer)) throw new Error('the compile process answered no output')
        return answer.output
    }

    /** The long version string a soljson build reports. */
    async version(soljson: string): Promise<string> {
        const answer = await this.run({ soljson })
        if (!('version' in answer)) throw new Error('the compile process answered no version')
        return answer.version
    }

    async close(): Promise<void> {
        this.closed = true
        this.slots.close(new Error('the compile pool is closed'))
        for (const timer of this.idleTimers.values()) clearTimeout(timer)
        this.idle.splice(0)
        await Promise.all([...this.all].map((p) => p.kill()))
    }

    /** Once closed, the slots refuse it (and every task still waiting) with 'the compile pool is closed'. */
    private run(task: Omit<CompileTask, 'id' | 'outputMaxBytes'>): Promise<CompileAnswer> {
        return this.slots.run(() => this.execute(this.take(), task))
    }

    private take(): CompileProcess {
        const reused = this.idle.pop()
        if (reused) {
            clearTimeout(this.idleTimers.get(reused))
            this.idleTimers.delete(reused)
            return reused
        }
        const fresh = new CompileProcess(this.options)
        this.all.add(fresh)
        void fresh.exited.then(() => {
            this.all.delete(fresh)
            const i = this.idle.indexOf(fresh)
            if (i >= 0) this.idle.splice(i, 1)
            clearTimeout(this.idleTimers.get(fresh))
            this.idleTimers.delete(fresh)
        })
        return fresh
    }

    private release(child: CompileProcess): void {
        if (this.closed) return void child.kill()
        this.idle.push(child)
        const timer = setTimeout(() => {
            this.idleTimers.delete(child)
            const i = this.idle.indexOf(child)
            if (i >= 0) this.idle.splice(i, 1)
            void child.kill()
        }, this.options.idleMs ?? 5 * 60_000)
        timer.unref()
        this.idleTimers.set(child, timer)
    }

    private async execute(child: CompileProcess, task: Omit<CompileTask, 'id' | 'outputMaxBytes'>): Promise<CompileAnswer> {
        const id = this.nextId++
        const answer = await child.ask({ ...task, id, outputMaxBytes: this.options.outputMaxBytes }, this.options.timeoutMs)
            .catch(async (err: Error) => {
                await child.kill()
                throw err
            })
        if ('error' in answer) {
            // WebAssembly memory never shrinks: a compile that failed (past the output cap, say) may
            // leave its process holding gigabytes, so it is not kept.
            await child.kill()
            throw new Error(answer.error)
        }
        this.release(child)
        return answer
    }
}

/** One compile process: a task in, its answer read as one line of at most a bounded length. */
class CompileProcess {
    private readonly proc: ChildProcess
    readonly exited: Promise<void>
    private exitReason?: string
    private pending?: { resolve: (answer: CompileAnswer) => void; reject: (err: Error) => void }
    private chunks: Buffer[] = []
    private buffered = 0
    private readonly answerMaxBytes: number

    constructor(private readonly options: CompilePoolOptions) {
        // An answer holds no more than the output the cap admitted, and a little JSON around it.
        this.answerMaxBytes = options.outputMaxBytes + 64 * 1024
        const memory = options.memoryMb
        this.proc = spawn(process.execPath, [
            // WebAssembly memory counts in 64 KiB pages; these V8 flags are process-wide, hence a process.
            `--wasm-max-mem-pages=${memory * 16}`,
            `--max-old-space-size=${memory}`,
            path.join(__dirname, 'compile-child.js'),
        // No environment: the compiler needs none, and the api's holds its database's and keys' secrets.
        ], { stdio: ['pipe', 'inherit', 'inherit', 'pipe'], env: {} })
        this.exited = new Promise((resolve) => this.proc.once('exit', (code, signal) => {
            this.fail(new Error(this.exitReason ?? `the compile process ended (${signal ?? `exit code ${code}`}), as it does past its memory cap of ${memory} MB (VERIFIER_COMPILE_MEMORY_MB)`))
            resolve()
        }))
        this.proc.once('error', (err) => this.fail(err))
        ;(this.proc.stdin as Writable).on('error', () => { /* a dead process's stdin: its exit reports it */ })
        ;(this.proc.stdio[3] as Readable).on('data', (chunk: Buffer) => this.read(chunk))
    }

    ask(task: CompileTask, timeoutMs: number): Promise<CompileAnswer> {
        return new Promise<CompileAnswer>((resolve, reject) => {
            const watch = setInterval(() => this.checkMemory(), RSS_POLL_MS)
            const timer = setTimeout(() => this.end(`compilation took longer than ${timeoutMs / 1000} s`), timeoutMs)
            const settle = () => {
                clearInterval(watch)
                clearTimeout(timer)
                this.pending = undefined
            }
            this.pending = {
                resolve: (answer) => (settle(), resolve(answer)),
                reject: (err) => (settle(), reject(err)),
            }
            if (this.proc.exitCode !== null || this.proc.signalCode !== null) return this.fail(new Error('the compile process has ended'))
            this.proc.stdin!.write(`${JSON.stringify(task)}\n`)
        })
    }

    kill(): Promise<void> {
        this.proc.kill('SIGKILL')
        return this.exited
    }

    /** Kills the process, the pending task failing with reason. */
    private end(reason: string): void {
        this.exitReason ??= reason
        this.fail(new Error(reason))
        this.proc.kill('SIGKILL')
    }

    private fail(err: Error): void {
        this.pending?.reject(err)
    }

    private read(chunk: Buffer): void {
        let newline = chunk.indexOf(10)
        while (newline >= 0) {
            this.chunks.push(chunk.subarray(0, newline))
            const line = Buffer.concat(this.chunks).toString('utf8')
            this.chunks = []
            this.buffered = 0
            let answer: CompileAnswer | undefined
            try {
                answer = JSON.parse(line)
            } catch {
                return this.end('the compile process answered something unreadable')
            }
            this.pending?.resolve(answer!)
            chunk = chunk.subarray(newline + 1)
            newline = chunk.indexOf(10)
        }
        this.buffered += chunk.length
        if (this.buffered > this.answerMaxBytes) return this.end(`the compile process's answer exceeded ${this.answerMaxBytes} bytes`)
        if (chunk.length > 0) this.chunks.push(chunk)
    }

    /** The backstop past the V8 caps: the whole process's resident memory (Linux; elsewhere the caps alone bound it). */
    private checkMemory(): void {
        let status: string
        try {
            status = fs.readFileSync(`/proc/${this.proc.pid}/status`, 'utf8')
        } catch {
            return
        }
        const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0)
        if (kb > this.options.memoryMb * 1024) this.end(`the compile used more than its ${this.options.memoryMb} MB of memory (VERIFIER_COMPILE_MEMORY_MB)`)
    }
}
