/**
 * A slice of a list in the Etherscan-style API's page/offset terms, within a block range; made
 * from the request by etherscan/params.ts windowOf.
 */
export interface Window {
    offset: number
    limit: number
    /** rows each index branch must deliver so the merged window is complete */
    depth: number
    desc: boolean
    from: number
    to: number
}
