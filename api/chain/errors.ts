import { RequestHandler } from 'express'
import { ErrorSurface } from '../../common/service/error-handler'
import { HttpError } from '../../common/service/http-error'

/**
 * Errors in Blockscout's shapes, so a Blockscout frontend reacts to them as it does to the real
 * backend: 422 with a JSON:API-style `errors` list for a parameter that fails validation, 404
 * `{message: "Not found"}` for an unknown object.
 */
export const chainErrors: ErrorSurface = {
    name: 'chain data API',
    // A validation failure is its `errors` list alone; every other error is `{message, ...details}`.
    body: (err) => (err.details.errors ? { errors: err.details.errors } : { message: err.message, ...err.details }),
    parserFault: ({ status, message }) => new HttpError(status, String(message)),
    internalMessage: 'Internal server error',
}

/** 422 for parameters that fail validation: one entry per (parameter, reason). */
export function invalidParams(problems: { param: string; detail: string }[]): HttpError {
    return new HttpError(422, 'Invalid value', {
        details: { errors: problems.map(({ param, detail }) => ({ title: 'Invalid value', source: { pointer: `/${param}` }, detail })) },
    })
}

export function invalidParam(param: string, ...details: string[]): HttpError {
    return invalidParams(details.map((detail) => ({ param, detail })))
}

export function notFound(extra: Record<string, unknown> = {}): HttpError {
    return new HttpError(404, 'Not found', { details: extra })
}

export const unknownAction: RequestHandler = (_req, _res, next) => {
    next(new HttpError(400, 'Unknown API v2 action'))
}
