import { Response } from 'express'
import { z } from 'zod'

/**
 * Blockscout's v1 RPC envelope. Success is `{status: "1", message: "OK", result}`. A failure is
 * `{status: "0", message: <reason>, result}` with HTTP 200: clients of the Etherscan-style API read
 * the status field, not the HTTP code, and Blockscout keeps 4xx for requests it cannot route at
 * all (no module or action, an unknown one). `result` is null for a bad request and [] for a list
 * that matched nothing, so a client can tell "you asked wrongly" from "there is nothing".
 */
export class EtherscanError extends Error {
    constructor(message: string, readonly result: unknown = null, readonly httpStatus = 200) {
        super(message)
    }
}

/** The envelope of a success; `result` is the action's. */
export const EtherscanSuccess = z.object({ status: z.literal('1'), message: z.literal('OK'), result: z.unknown() }).meta({ id: 'EtherscanSuccess' })

/** The envelope of a failure: `result` null for a bad request, [] for a list that matched nothing, Etherscan's text for a failed verification. */
export const EtherscanFailure = z.object({
    status: z.literal('0'),
    message: z.string(),
    result: z.union([z.null(), z.array(z.unknown()).max(0), z.string()]),
}).meta({ id: 'EtherscanFailure' })

export function ok(res: Response, result: unknown): void {
    res.json({ status: '1', message: 'OK', result })
}

export function fail(res: Response, err: EtherscanError): void {
    res.status(err.httpStatus).json({ status: '0', message: err.message, result: err.result })
}

/** A list that matched nothing: Blockscout's "No ... found" with an empty result. */
export function nothingFound(message: string): EtherscanError {
    return new EtherscanError(message, [])
}

/**
 * Parses the query with a schema whose messages are the client-facing texts; the first issue
 * becomes the answer, as Blockscout reports one problem at a time.
 */
export function parseParams<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
    const parsed = schema.safeParse(query ?? {})
    if (parsed.success) return parsed.data
    throw new EtherscanError(parsed.error.issues[0]?.message ?? 'Invalid parameters')
}
