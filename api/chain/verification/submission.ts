import { z } from 'zod'

/**
 * What a verification request carries, whichever route it came by (docs/contract-verification.md):
 * the compiler's standard JSON input, the compiler, which contract, and its constructor arguments
 * when the submitter states them.
 */
export interface Submission {
    address: string
    compilerVersion: string
    input: StandardInput
    /** `Name` or `path/File.sol:Name`; absent: whichever compiled contract matches */
    contractName?: string
    /** ABI-encoded, hex without 0x; absent or empty: read from the creation input */
    constructorArgs?: string
}

/**
 * solc's standard JSON input, Solidity only. Sources are given by content: the verifier fetches
 * nothing (`urls` are dropped), so an import must be among the sources.
 */
export const StandardInput = z.object({
    language: z.literal('Solidity', { error: 'only Solidity sources are verified here' }),
    sources: z.record(z.string().min(1).max(1_024), z.object({ content: z.string() }))
        .refine((sources) => Object.keys(sources).length > 0, 'no sources'),
    settings: z.record(z.string(), z.unknown()).default({}),
})

export type StandardInput = z.infer<typeof StandardInput>

/** Constructor arguments as submitted: hex, with or without 0x; empty means "read them from the chain". */
export const ConstructorArgs = z.string().max(1_000_000).regex(/^(0x)?([0-9a-fA-F]{2})*$/, 'hex bytes expected')
    .transform((s) => s.replace(/^0x/, '').toLowerCase())

/** A flattened source with the settings Blockscout's form asks for, as standard JSON input. */
export function flattenedInput(options: {
    source: string
    contractName: string
    optimize: boolean
    runs?: number
    evmVersion?: string
    libraries?: Record<string, string>
}): StandardInput {
    const file = `${options.contractName}.sol`
    const settings: Record<string, unknown> = {
        optimizer: { enabled: options.optimize, runs: options.runs ?? 200 },
    }
    if (options.evmVersion && options.evmVersion !== 'default') settings.evmVersion = options.evmVersion
    if (options.libraries && Object.keys(options.libraries).length > 0) settings.libraries = { [file]: options.libraries }
    return { language: 'Solidity', sources: { [file]: { content: options.source } }, settings }
}
