import { STATUS_CODES } from 'http'

export interface HttpErrorOptions {
    /** Machine-readable name of the failure; surfaces that show no code may leave it to the status's name. */
    code?: string
    /** Further members of the error body, e.g. `{ field: 'email' }` (how a surface shows them: its ErrorSurface). */
    details?: Record<string, unknown>
    headers?: Record<string, string>
}

/**
 * A failure the caller is told about: handlers throw it, and the error middleware of each surface
 * (error-handler.ts) writes it in that surface's body. Anything else thrown is a 500.
 */
export class HttpError extends Error {
    readonly code: string
    readonly details: Record<string, unknown>
    readonly headers: Record<string, string>

    constructor(readonly status: number, message: string, options: HttpErrorOptions = {}) {
        super(message)
        this.name = 'HttpError'
        this.code = options.code ?? statusName(status)
        this.details = options.details ?? {}
        this.headers = options.headers ?? {}
    }
}

/** 404 -> "not_found". */
function statusName(status: number): string {
    return (STATUS_CODES[status] ?? 'error').toLowerCase().replace(/[^a-z0-9]+/g, '_')
}
