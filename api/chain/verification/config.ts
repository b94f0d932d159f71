import { z } from 'zod'

/** Contract verification's variables (docs/configuration.md, docs/contract-verification.md). */
export const VerificationSettingsSchema = z.object({
    VERIFIER_THREADS: z.coerce.number().int().min(1).max(64).optional()
        .describe('compiles of submitted contracts that run at once, each in a process of its own; unset: one per core'),
    VERIFIER_QUEUE_LIMIT: z.coerce.number().int().min(0).max(10_000).default(16)
        .describe('submitted verifications that may wait for a compile process; one more is answered 503 with Retry-After'),
    VERIFIER_PER_IP: z.coerce.number().int().min(1).max(1_000).default(2)
        .describe('verifications one client (an IPv4 address, or an IPv6 /64; see `TRUST_PROXY`) may have waiting or compiling at once; one more is answered 429'),
    VERIFIER_COMPILE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(120_000)
        .describe('longest one compile may run; past it the compile process is killed and the verification fails with that reason'),
    VERIFIER_COMPILE_MEMORY_MB: z.coerce.number().int().min(256).max(65_536).default(1_536)
        .describe('memory of one compile process: its WebAssembly and JavaScript heap are capped to it and it is killed past it (resident memory); the verification then fails with that reason'),
    VERIFIER_OUTPUT_MAX_MB: z.coerce.number().int().min(1).max(1_024).default(16)
        .describe('largest compiler output (standard JSON, of the fields verification asks for) a compile may produce; a larger one fails the verification with that reason, before anything parses it'),
    VERIFIER_MAX_INPUT_KB: z.coerce.number().int().min(1).max(102_400).default(5_120)
        .describe('largest verification request body, all its fields and files together (standard JSON input or flattened source); a larger one is answered 413 as soon as its declared length or the bytes read pass it'),
    VERIFIER_SOLC_DIR: z.string().min(1).optional()
        .describe('a directory of official solc-js builds (`soljson-v0.8.26+commit.8a97fa7a.js`, from binaries.soliditylang.org/bin) offered besides the bundled one; unset: only the bundled compiler'),
})

export type VerificationSettings = z.infer<typeof VerificationSettingsSchema>
