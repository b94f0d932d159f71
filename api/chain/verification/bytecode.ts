/**
 * Matching compiled bytecode with a contract on chain, as Blockscout's verifier does
 * (docs/contract-verification.md, Matching): a full match is identical code including the
 * compiler's metadata hash; a partial match differs only inside the metadata (other comments,
 * paths or settings that do not change the code). Immutables and constructor arguments are
 * values written at deployment, so they are read from the chain, never compared.
 */

/** solc's immutableReferences: for each immutable, the byte ranges of the runtime code that hold it. */
export type ImmutableReferences = Record<string, { start: number; length: number }[]>

export type MatchType = 'full' | 'partial'

/** Hex without 0x, lowercase. */
function plain(code: string): string {
    return code.replace(/^0x/i, '').toLowerCase()
}

/**
 * The metadata solc appends: a CBOR map whose byte length is the code's last two bytes. Returns
 * the hex offset where it starts, or undefined when the tail is not such a map (metadata turned
 * off with `appendCBOR: false`, or code not from solc).
 */
export function metadataStart(code: string): number | undefined {
    if (code.length < 4) return undefined
    const length = parseInt(code.slice(-4), 16)
    const start = code.length - 4 - length * 2
    if (length === 0 || start < 0) return undefined
    const first = parseInt(code.slice(start, start + 2), 16)
    // CBOR major type 5 (a map): 0xa0-0xbf.
    return first >= 0xa0 && first <= 0xbf ? start : undefined
}

/** The code with the metadata's content zeroed, its length bytes kept: two codes equal so differ only in metadata. */
function withoutMetadata(code: string): string | undefined {
    const start = metadataStart(code)
    if (start === undefined) return undefined
    return code.slice(0, start) + '0'.repeat(code.length - 4 - start) + code.slice(-4)
}

/** The on-chain runtime with each immutable's bytes zeroed, as the compiler leaves them. */
function maskImmutables(code: string, refs: ImmutableReferences): string {
    const chars = code.split('')
    for (const ranges of Object.values(refs)) {
        for (const { start, length } of ranges) {
            for (let i = start * 2; i < (start + length) * 2 && i < chars.length; i++) chars[i] = '0'
        }
    }
    return chars.join('')
}

/** Placeholders solc leaves for libraries it was not told the addresses of (`__$<hash>$__`). */
export function hasUnlinkedLibraries(code: string): boolean {
    return code.includes('__$')
}

/** Compares the compiled runtime code with the deployed code. */
export function matchRuntime(compiled: string, immutables: ImmutableReferences, deployed: string): MatchType | undefined {
    const ours = plain(compiled)
    const theirs = maskImmutables(plain(deployed), immutables)
    if (ours.length === 0 || ours.length !== theirs.length) return undefined
    if (ours === theirs) return 'full'
    const a = withoutMetadata(ours)
    return a !== undefined && a === withoutMetadata(theirs) ? 'partial' : undefined
}

/**
 * Compares the compiled creation code with the creation input (creation code then the ABI-encoded
 * constructor arguments); the arguments are what follows it.
 */
export function matchCreation(compiled: string, input: string): { match: MatchType; constructorArgs: string } | undefined {
    const ours = plain(compiled)
    const theirs = plain(input)
    if (ours.length === 0 || theirs.length < ours.length) return undefined
    const head = theirs.slice(0, ours.length)
    const constructorArgs = theirs.slice(ours.length)
    if (head === ours) return { match: 'full', constructorArgs }
    const a = withoutMetadata(ours)
    return a !== undefined && a === withoutMetadata(head) ? { match: 'partial', constructorArgs } : undefined
}
