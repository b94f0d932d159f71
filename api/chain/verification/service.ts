import * as os from 'os'
import { Pool } from 'pg'
import { Hex, PublicClient } from 'viem'
import { WorkPool } from '../../../common/work-pool'
import { Logger } from '../../../common/logger'
import { hasUnlinkedLibraries, matchCreation, matchRuntime, MatchType } from './bytecode'
import { CompiledContract, CompilePool, CompilerOutput } from './compile-pool'
import { Compiler, Compilers } from './compilers'
import { VerificationSettings } from './config'
import { Job, Target, VerificationStore } from './store'
import { Submission } from './submission'

/** Why a submission is not taken; the routes answer each in their API's words. */
export type Refusal = 'unknown_compiler' | 'no_contract' | 'already_verified' | 'busy_client' | 'queue_full'

export class VerificationRefused extends Error {
    constructor(readonly refusal: Refusal, message: string) {
        super(message)
    }
}

export const ALREADY_VERIFIED = 'Smart-contract already verified.'

type Outcome = { status: 'pass'; match: MatchType } | { status: 'fail'; reason: string }

const OUTPUT_FIELDS = ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences', 'metadata']

/**
 * Only what matching reads, and of the named contract alone when there is a name: every other
 * output (and every other contract's) costs the compiler memory and can be made to grow
 * exponentially with the source (contracts that each `new` the ones below).
 */
function outputSelection(contractName?: string) {
    if (!contractName) return { '*': { '*': OUTPUT_FIELDS } }
    const colon = contractName.lastIndexOf(':')
    if (colon < 0) return { '*': { [contractName]: OUTPUT_FIELDS } }
    return { [contractName.slice(0, colon)]: { [contractName.slice(colon + 1)]: OUTPUT_FIELDS } }
}

const SWEEP_MS = 60 * 60_000

/** A reason quoted from the compiler is cut here: an answer is not the place for a whole log. */
const REASON_CHARS = 2_000

/**
 * Verifies submitted sources against the chain (docs/contract-verification.md): a submission is
 * checked and admitted at once (a job id to poll), then compiled on the pool and compared with
 * the deployed code; the outcome is the job's, a match is a verified contract.
 */
export class ContractVerification {
    readonly compilers: Compilers
    private readonly compile: CompilePool
    private readonly store: VerificationStore
    /**
     * Admission: as many jobs running as compile processes, VERIFIER_QUEUE_LIMIT more waiting, the
     * next refused; and VERIFIER_PER_IP waiting or compiling per clientKey (an IPv6 /64 is one client).
     */
    private readonly gate: WorkPool
    private readonly running = new Set<Promise<void>>()
    private readonly threads: number
    private readonly sweeper: NodeJS.Timeout

    constructor(private readonly deps: { pool: Pool; node: PublicClient; log: Logger; settings: VerificationSettings }) {
        const s = deps.settings
        this.threads = s.VERIFIER_THREADS ?? os.availableParallelism()
        this.compile = new CompilePool({
            processes: this.threads,
            timeoutMs: s.VERIFIER_COMPILE_TIMEOUT_MS,
            memoryMb: s.VERIFIER_COMPILE_MEMORY_MB,
            outputMaxBytes: s.VERIFIER_OUTPUT_MAX_MB * 1024 * 1024,
        })
        this.gate = new WorkPool({ concurrency: this.threads, queue: s.VERIFIER_QUEUE_LIMIT, perKey: s.VERIFIER_PER_IP })
        this.compilers = new Compilers(this.compile, s.VERIFIER_SOLC_DIR)
        this.store = new VerificationStore(deps.pool)
        // Old jobs are swept off the submit path: at start, then hourly (every replica; the DELETE is idempotent).
        const sweep = () => void this.store.sweepJobs().catch((err) => deps.log.warn({ err }, 'sweeping old verification jobs failed; the next sweep tries again'))
        sweep()
        this.sweeper = setInterval(sweep, SWEEP_MS)
        this.sweeper.unref()
    }

    /**
     * Admits a submission and returns its job id; the compile runs after. Refuses at once what
     * cannot succeed, and what would exceed the client's share or the queue.
     */
    async submit(sub: Submission, clientKey: string): Promise<string> {
        const compiler = await this.compilers.find(sub.compilerVersion)
        if (!compiler) {
            const installed = (await this.compilers.list()).map((c) => c.version).join(', ')
            throw new VerificationRefused('unknown_compiler', `Compiler version ${sub.compilerVersion} is not installed here; installed: ${installed}`)
        }
        const target = await this.store.target(sub.address)
        if (!target?.is_contract) throw new VerificationRefused('no_contract', `Unable to locate ContractCode at ${sub.address}`)
        if (target.match_type === 'full') throw new VerificationRefused('already_verified', ALREADY_VERIFIED)
        // The job starts (or takes its queue place) now; it waits for its row before it runs.
        let created!: (id: string | undefined) => void
        const row = new Promise<string | undefined>((resolve) => (created = resolve))
        const admitted = this.gate.tryRun(async () => {
            const id = await row
            if (id) await this.run(id, sub, compiler, target)
        }, clientKey)
        if (admitted === 'key_full') {
            throw new VerificationRefused('busy_client', `At most ${this.deps.settings.VERIFIER_PER_IP} verifications of one client at once; wait for one to finish`)
        }
        if (admitted === 'queue_full') throw new VerificationRefused('queue_full', 'The verification queue is full; try again shortly')
        const work: Promise<void> = admitted.finally(() => this.running.delete(work))
        this.running.add(work)
        try {
            const id = await this.store.createJob(sub.address)
            created(id)
            return id
        } catch (err) {
            created(undefined)
            throw err
        }
    }

    /** A job as checkverifystatus reads it; one still pending after the longest it could take was interrupted. */
    job(id: string): Promise<Job | undefined> {
        const s = this.deps.settings
        const longest = s.VERIFIER_COMPILE_TIMEOUT_MS * (Math.ceil(s.VERIFIER_QUEUE_LIMIT / this.threads) + 2) + 60_000
        return this.store.job(id, longest)
    }

    async close(): Promise<void> {
        clearInterval(this.sweeper)
        await this.compile.close()
        await Promise.allSettled([...this.running])
    }

    private async run(id: string, sub: Submission, compiler: Compiler, target: Target): Promise<void> {
        let outcome: Outcome
        try {
            outcome = await this.verify(sub, compiler, target)
        } catch (err) {
            this.deps.log.error({ err, address: sub.address }, 'contract verification failed unexpectedly')
            outcome = { status: 'fail', reason: 'The verification could not be completed; submit it again' }
        }
        await this.store.finishJob(id, sub.address, outcome).catch((err) => this.deps.log.error({ err, job: id }, 'recording a verification outcome failed'))
        this.deps.log.info({ address: sub.address, job: id, ...outcome }, 'contract verification finished')
    }

    private async verify(sub: Submission, compiler: Compiler, target: Target): Promise<Outcome> {
        const fail = (reason: string): Outcome => ({ status: 'fail', reason: reason.slice(0, REASON_CHARS) })
        let deployed: Hex | undefined
        try {
            deployed = await this.deployedCode(sub.address)
        } catch {
            return fail('The node did not answer for the deployed code; submit the verification again')
        }
        if (!deployed || deployed === '0x') return fail(`The node has no code at ${sub.address}`)
        const { outputSelection: _dropped, ...settings } = sub.input.settings
        const input = { ...sub.input, settings: { ...settings, outputSelection: outputSelection(sub.contractName) } }
        let output: CompilerOutput
        try {
            output = await this.compile.compile(compiler.soljson, JSON.stringify(input))
        } catch (err) {
            return fail(`The compiler failed: ${err instanceof Error ? err.message : String(err)}`)
        }
        const error = output.errors.find((e) => e.severity === 'error')
        if (error) return fail(`Compilation failed: ${error.formattedMessage ?? error.message}`)
        const candidates = selectContracts(output.contracts, sub.contractName)
        if (candidates.length === 0) {
            return fail(sub.contractName ? `No contract named ${sub.contractName} in the sources` : 'The sources compile to no contract')
        }
        const creationInput = target.creation_input ? target.creation_input.toString('hex') : undefined
        let best: { file: string; name: string; contract: CompiledContract; match: MatchType; args: string | null } | undefined
        let unlinked = false
        for (const { file, name, contract } of candidates) {
            const runtime = contract.evm.deployedBytecode.object
            if (!runtime) continue
            if (hasUnlinkedLibraries(runtime)) {
                unlinked = true
                continue
            }
            let match = matchRuntime(runtime, contract.evm.deployedBytecode.immutableReferences ?? {}, deployed)
            if (!match) continue
            // Without the creation input only the runtime is proven: the constructor arguments (and
            // the immutables they set, which runtime matching reads from the chain) are not, so the
            // match is partial and no arguments are recorded, whatever the submitter states.
            let args: string | null = null
            if (creationInput === undefined) {
                match = 'partial'
            } else {
                const creation = matchCreation(contract.evm.bytecode.object, creationInput)
                if (!creation) continue
                if (creation.match === 'partial') match = 'partial'
                args = creation.constructorArgs || null
            }
            if (!best || (best.match === 'partial' && match === 'full')) best = { file, name, contract, match, args }
        }
        if (!best) {
            if (unlinked) return fail('The contract links libraries whose addresses were not given (settings.libraries)')
            const which = sub.contractName ?? 'every contract of the sources'
            return fail(`The compiled bytecode of ${which} does not match the code deployed at ${sub.address}`)
        }
        if (sub.constructorArgs && creationInput !== undefined && sub.constructorArgs !== (best.args ?? '')) {
            return fail('The constructor arguments given differ from those of the creation transaction')
        }
        const compiledFrom = metadataSources(best.contract.metadata)
        if (!compiledFrom) return fail('The compiler gave no metadata naming the sources of the contract')
        const saved = await this.store.save({
            address: sub.address,
            name: best.name,
            sourceName: best.file,
            compilerVersion: compiler.version,
            settings,
            // Only the files the contract was compiled from: a file nobody imports leaves the code and
            // its metadata hash unchanged, so keeping it would let a submitter pin any text to a contract.
            sources: Object.fromEntries(Object.entries(sub.input.sources)
                .filter(([path]) => compiledFrom.has(path))
                .map(([path, s]) => [path, s.content])),
            abi: best.contract.abi,
            constructorArgs: best.args,
            match: best.match,
        })
        return saved ? { status: 'pass', match: best.match } : fail(ALREADY_VERIFIED)
    }

    /** The deployed code; a node that errors is asked again before the verification gives up. */
    private async deployedCode(address: string): Promise<Hex | undefined> {
        for (let attempt = 1; ; attempt++) {
            try {
                return await this.deps.node.getCode({ address: address as Hex })
            } catch (err) {
                if (attempt === 3) throw err
                await new Promise((r) => setTimeout(r, 1_000 * attempt))
            }
        }
    }
}

/** The source paths solc's metadata names (those the contract was compiled from); undefined when it is missing or malformed. */
function metadataSources(metadata: string | undefined): Set<string> | undefined {
    try {
        const sources = metadata ? (JSON.parse(metadata) as { sources?: unknown }).sources : undefined
        return sources && typeof sources === 'object' ? new Set(Object.keys(sources)) : undefined
    } catch {
        return undefined
    }
}

/** The compiled contracts a name selects: `path:Name` exactly, `Name` in any file, or every contract. */
function selectContracts(contracts: Record<string, Record<string, CompiledContract>>, wanted?: string) {
    const all = Object.entries(contracts).flatMap(([file, byName]) => Object.entries(byName).map(([name, contract]) => ({ file, name, contract })))
    if (!wanted) return all
    const colon = wanted.lastIndexOf(':')
    if (colon >= 0) return all.filter((c) => c.file === wanted.slice(0, colon) && c.name === wanted.slice(colon + 1))
    return all.filter((c) => c.name === wanted)
}
