import { z } from 'zod'

/** Contract verification's variables (docs/configuration.md, docs/contract-verification.md). */
export const VerificationSettingsSchema = z.object({
    VERIFIER_THREADS: z.coerce.number().int().min(1).max(64).optional()
        .describe('compiles of submitted contracts that run at once, each on a thread of its own; unset: one per core'),
    VERIFIER_QUEUE_LIMIT: z.coerce.number().int().min(0).max(10_000).default(16)
        .describe('submitted verifications that may wait for a compile thread; one more is answered 503 with Retry-After'),
    VERIFIER_PER_IP: z.coerce.number().int().min(1).max(1_000).default(2)
        .describe('verifications one client IP may have waiting or compiling at once (see `TRUST_PROXY`); one more is answered 429'),
    VERIFIER_COMPILE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(120_000)
        .describe('longest one compile may run; past it the compile thread is ended and the verification fails with that reason'),
    VERIFIER_MAX_INPUT_KB: z.coerce.number().int().min(1).max(102_400).default(5_120)
        .describe('largest verification request body (standard JSON input or flattened source); a larger one is answered 413'),
    VERIFIER_SOLC_DIR: z.string().min(1).optional()
        .describe('a directory of official solc-js builds (`soljson-v0.8.26+commit.8a97fa7a.js`, from binaries.soliditylang.org/bin) offered besides the bundled one; unset: only the bundled compiler'),
})

export type VerificationSettings = z.infer<typeof VerificationSettingsSchema>
