/** What the launcher holds of a local bridge network it started: docs/bridge/README.md#local-chains-npm-start */

/** The bridge's vault address on a network, undefined where it has none (read once from GET /api/swap/config). */
export type VaultOf = (chain: string) => string | undefined

export interface LocalNetwork {
    /** Variables that tell the bridge where they are. */
    childEnv: Record<string, string>
    /** Lines of the launcher's banner. */
    banner: string[]
    /** Once the bridge answers: tops up its vaults (and the provider's treasuries) on them. */
    fund(vault: VaultOf): Promise<void>
    stop(): Promise<void>
}
