import * as path from 'path'
import { Worker } from 'worker_threads'
import { CompileAnswer, CompileTask } from './compile-worker'

/**
 * At most one compile per thread, as many threads as configured (one per core by default); the
 * rest wait in order (the verification service bounds how many it admits), and none runs on the
 * API's event loop. A compile past its time limit ends its thread (solc-js cannot be interrupted
 * otherwise); idle threads are ended too, since each holds its loaded compilers' memory.
 */
export class CompilePool {
    private readonly idle: Worker[] = []
    private busy = 0
    private readonly queue: { task: Omit<CompileTask, 'id'>; resolve: (output: string) => void; reject: (err: Error) => void }[] = []
    private readonly idleTimers = new Map<Worker, NodeJS.Timeout>()
    private nextId = 1
    private closed = false

    constructor(private readonly options: { threads: number; timeoutMs: number; idleMs?: number }) {}

    /** The compiler's standard JSON output, as text. */
    compile(soljson: string, input: string): Promise<string> {
        return this.run({ soljson, input })
    }

    /** The long version string a soljson build reports. */
    version(soljson: string): Promise<string> {
        return this.run({ soljson })
    }

    async close(): Promise<void> {
        this.closed = true
        for (const waiting of this.queue.splice(0)) waiting.reject(new Error('the compile pool is closed'))
        for (const timer of this.idleTimers.values()) clearTimeout(timer)
        await Promise.all(this.idle.splice(0).map((w) => w.terminate()))
    }

    private run(task: Omit<CompileTask, 'id'>): Promise<string> {
        if (this.closed) return Promise.reject(new Error('the compile pool is closed'))
        return new Promise((resolve, reject) => {
            this.queue.push({ task, resolve, reject })
            this.next()
        })
    }

    private next(): void {
        while (this.queue.length > 0 && this.busy < this.options.threads) {
            const job = this.queue.shift()!
            this.busy++
            this.execute(this.take(), job.task).then(job.resolve, job.reject).finally(() => {
                this.busy--
                this.next()
            })
        }
    }

    private take(): Worker {
        const worker = this.idle.pop()
        if (worker) {
            clearTimeout(this.idleTimers.get(worker))
            this.idleTimers.delete(worker)
            return worker
        }
        return new Worker(path.join(__dirname, 'compile-worker.js'), { resourceLimits: { maxOldGenerationSizeMb: 2048 } })
    }

    private release(worker: Worker): void {
        if (this.closed) return void worker.terminate()
        this.idle.push(worker)
        const timer = setTimeout(() => {
            this.idleTimers.delete(worker)
            const i = this.idle.indexOf(worker)
            if (i >= 0) this.idle.splice(i, 1)
            void worker.terminate()
        }, this.options.idleMs ?? 5 * 60_000)
        timer.unref()
        this.idleTimers.set(worker, timer)
    }

    private execute(worker: Worker, task: Omit<CompileTask, 'id'>): Promise<string> {
        const id = this.nextId++
        return new Promise<string>((resolve, reject) => {
            const done = (finish: () => void, keep: boolean) => {
                clearTimeout(timer)
                worker.off('message', onMessage)
                worker.off('error', onError)
                worker.off('exit', onExit)
                if (keep) this.release(worker)
                else void worker.terminate()
                finish()
            }
            const timer = setTimeout(() => done(() => reject(new Error(`compilation took longer than ${this.options.timeoutMs / 1000} s`)), false), this.options.timeoutMs)
            const onMessage = (answer: CompileAnswer) => {
                if (answer.id !== id) return
                if ('error' in answer) done(() => reject(new Error(answer.error)), true)
                else done(() => resolve(answer.output), true)
            }
            const onError = (err: Error) => done(() => reject(err), false)
            const onExit = (code: number) => done(() => reject(new Error(`the compile thread exited (${code})`)), false)
            worker.on('message', onMessage)
            worker.on('error', onError)
            worker.on('exit', onExit)
            worker.postMessage({ ...task, id } satisfies CompileTask)
        })
    }
}
