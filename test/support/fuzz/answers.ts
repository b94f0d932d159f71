import Ajv2020, { ValidateFunction } from 'ajv/dist/2020'
import { DocumentedAnswer, DocumentedOperation, OpenApiDocument } from './document'

/**
 * Checks an HTTP answer against what the document promises for the operation: no 5xx unless
 * expected, a documented status, and a JSON body valid against that status's schema
 * (ajv, JSON Schema 2020-12). docs/testing.md#fuzzing
 */

export interface Answer {
    status: number
    contentType: string
    text: string
}

const DOCUMENT_ID = 'fuzzed-openapi-document'

// The formats zod writes; without ajv-formats, each is checked as the zod version in use does.
const FORMATS: Record<string, RegExp | ((s: string) => boolean)> = {
    'date-time': (s) => /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/.test(s) && !Number.isNaN(Date.parse(s)),
    date: (s) => /^\d{4}-\d\d-\d\d$/.test(s) && !Number.isNaN(Date.parse(s)),
    email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
    uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
    uri: (s) => URL.canParse(s),
}

/** An ajv for JSON Schema 2020-12 that knows the formats zod writes. */
export function schemaValidator(): Ajv2020 {
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    for (const [name, format] of Object.entries(FORMATS)) ajv.addFormat(name, format)
    return ajv
}

export class AnswerCheck {
    private readonly ajv = schemaValidator()
    private readonly validators = new Map<string, ValidateFunction>()

    /** @param expected5xx statuses of 500 and above this surface may answer (e.g. 503 while a dependency is away), where an operation documents them */
    constructor(doc: OpenApiDocument, private readonly expected5xx: readonly number[] = []) {
        this.ajv.addSchema(doc.raw, DOCUMENT_ID)
    }

    /** What is wrong with the answer, or undefined when it is as documented. */
    problem(op: DocumentedOperation, answer: Answer): string | undefined {
        const key = documentedKey(op, answer.status)
        if (answer.status >= 500 && !(key && this.expected5xx.includes(answer.status))) {
            return `server error ${answer.status}${key ? '' : ' (not documented either)'}`
        }
        if (!key) return `status ${answer.status} is not documented (documented: ${Object.keys(op.answers).join(', ')})`
        const documented: DocumentedAnswer = op.answers[key]
        if (!documented.schemaPointer) return undefined
        let body: unknown
        try {
            body = JSON.parse(answer.text)
        } catch {
            return `status ${answer.status} documents a JSON body; the answer (${answer.contentType || 'no content type'}) is not JSON`
        }
        const validate = this.validator(documented.schemaPointer)
        if (validate(body)) return undefined
        const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
        return `the ${answer.status} body does not match its schema: ${errors.join('; ')}`
    }

    private validator(pointer: string): ValidateFunction {
        let v = this.validators.get(pointer)
        if (!v) {
            v = this.ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer.split('/').map(encodeURIComponent).join('/')}` })
            this.validators.set(pointer, v)
        }
        return v
    }
}

/** The response key that covers a status: itself, its range (`4XX`), or `default`. */
function documentedKey(op: DocumentedOperation, status: number): string | undefined {
    return [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in op.answers)
}
