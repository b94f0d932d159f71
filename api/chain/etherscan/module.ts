import { z } from 'zod'
import { EtherscanContext } from './context'

/** Who asks: an action that spends per client (a verification's compile) keys its limit to this. */
export interface Client {
    /** clientKey: the IPv4 address, or the IPv6 /64 */
    key: string
}

/** An action answers the `result` of a success or throws an EtherscanError. */
export type Action = (ctx: EtherscanContext, query: Record<string, unknown>, client: Client) => Promise<unknown>

/** Actions by lowercase name: Blockscout matches `module` and `action` case-insensitively (getLogs = getlogs). */
export type Module = Record<string, Action>

/** The query schemas a module's actions parse with, for the OpenAPI document of GET /api. */
export type ModuleQueries = readonly z.ZodObject[]
