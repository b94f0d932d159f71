import { NextFunction, Request, Response } from 'express'
import { Logger } from '../../common/logger'

/**
 * Errors in Blockscout's shapes, so a Blockscout frontend reacts to them as it does to the real
 * backend: 422 with a JSON:API-style `errors` list for a parameter that fails validation, 404
 * `{message: "Not found"}` for an unknown object.
 */
export class ChainApiError extends Error {
    constructor(readonly status: number, readonly body: object) {
        super(JSON.stringify(body))
    }
}

/** 422 for parameters that fail validation: one entry per (parameter, reason). */
export function invalidParams(problems: { param: string; detail: string }[]): ChainApiError {
    return new ChainApiError(422, {
        errors: problems.map(({ param, detail }) => ({ title: 'Invalid value', source: { pointer: `/${param}` }, detail })),
    })
}

export function invalidParam(param: string, ...details: string[]): ChainApiError {
    return invalidParams(details.map((detail) => ({ param, detail })))
}

export function notFound(extra: object = {}): ChainApiError {
    return new ChainApiError(404, { message: 'Not found', ...extra })
}

export function unknownAction(_req: Request, res: Response): void {
    res.status(400).json({ message: 'Unknown API v2 action' })
}

export function chainErrorHandler(log: Logger) {
    return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
        if (err instanceof ChainApiError) {
            res.status(err.status).json(err.body)
            return
        }
        // body-parser and friends flag client faults with a status; everything else is ours.
        const status = (err as { status?: number }).status
        if (status && status >= 400 && status < 500) {
            res.status(status).json({ message: (err as Error).message })
            return
        }
        log.error({ err }, 'chain data API request failed')
        res.status(500).json({ message: 'Internal server error' })
    }
}
