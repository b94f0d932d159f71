/** The operations of an OpenAPI 3.1 document, as the fuzzer reads them (docs/testing.md#fuzzing). */

/** A JSON Schema (2020-12) as it appears in the document: an object, or true/false. */
export type JsonSchema = boolean | { [keyword: string]: any }

export interface Parameter {
    name: string
    in: 'path' | 'query' | 'header' | 'cookie'
    required: boolean
    schema: JsonSchema
}

export interface DocumentedAnswer {
    /** JSON Pointer (RFC 6901) of its JSON body's schema in the document, when it documents one. */
    schemaPointer?: string
    /** The documented media type of the body, when there is one. */
    contentType?: string
}

export interface DocumentedOperation {
    /** `GET /api/things/{id}`: how options and reports name the operation. */
    key: string
    method: string
    /** OpenAPI form: /api/things/{id}. */
    path: string
    parameters: Parameter[]
    body?: { schema: JsonSchema; required: boolean }
    /** Takes credentials (a security requirement of its own or the document's). */
    secured: boolean
    /** By status as the document writes it: `200`, `4XX` or `default`. */
    answers: Record<string, DocumentedAnswer>
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

export class OpenApiDocument {
    constructor(readonly raw: any) {
        if (typeof raw?.openapi !== 'string' || !raw.openapi.startsWith('3.1')) throw new Error(`not an OpenAPI 3.1 document (openapi: ${raw?.openapi})`)
    }

    /** Every operation, in document order. */
    operations(): DocumentedOperation[] {
        const found: DocumentedOperation[] = []
        for (const [path, item] of Object.entries<any>(this.raw.paths ?? {})) {
            const shared: any[] = item.parameters ?? []
            for (const method of METHODS) {
                const op = item[method]
                if (!op) continue
                const byKey = new Map<string, Parameter>()
                for (const p of [...shared, ...(op.parameters ?? [])].map((p) => this.deref(p))) {
                    byKey.set(`${p.in}:${p.name}`, { name: p.name, in: p.in, required: p.in === 'path' || p.required === true, schema: p.schema ?? true })
                }
                const opPointer = `/paths/${escapeToken(path)}/${method}`
                const requestBody = op.requestBody && this.deref(op.requestBody)
                const json = requestBody && jsonMediaType(requestBody.content)
                const answers: Record<string, DocumentedAnswer> = {}
                for (const [status, answer] of Object.entries<any>(op.responses ?? {})) {
                    const resolved = this.deref(answer)
                    const media = jsonMediaType(resolved.content)
                    const contentTypes = Object.keys(resolved.content ?? {})
                    // A response given by $ref lives elsewhere: point at the resolved one.
                    const base = answer.$ref ? answer.$ref.slice(1) : `${opPointer}/responses/${escapeToken(status)}`
                    answers[status] = {
                        contentType: media ?? contentTypes[0],
                        schemaPointer: media && resolved.content[media].schema !== undefined ? `${base}/content/${escapeToken(media)}/schema` : undefined,
                    }
                }
                found.push({
                    key: `${method.toUpperCase()} ${path}`,
                    method: method.toUpperCase(),
                    path,
                    parameters: [...byKey.values()],
                    secured: (op.security ?? this.raw.security ?? []).length > 0,
                    body: json ? { schema: requestBody.content[json].schema ?? true, required: requestBody.required === true } : undefined,
                    answers,
                })
            }
        }
        return found
    }

    /** A schema with its $ref (and chains of them) followed. */
    resolve(schema: JsonSchema): JsonSchema {
        return this.deref(schema)
    }

    private deref<T>(value: T): T {
        let current: any = value
        for (let hops = 0; current && typeof current === 'object' && typeof current.$ref === 'string'; hops++) {
            if (hops > 32) throw new Error(`$ref cycle at ${current.$ref}`)
            current = this.at(current.$ref)
        }
        return current
    }

    private at(ref: string): any {
        if (!ref.startsWith('#')) throw new Error(`only local $ref is supported: ${ref}`)
        let node: any = this.raw
        for (const token of decodeURIComponent(ref.slice(1)).split('/').slice(1)) {
            node = node?.[token.replace(/~1/g, '/').replace(/~0/g, '~')]
            if (node === undefined) throw new Error(`unresolved $ref ${ref}`)
        }
        return node
    }
}

/** One JSON Pointer token (RFC 6901). */
export function escapeToken(token: string): string {
    return token.replace(/~/g, '~0').replace(/\//g, '~1')
}

function jsonMediaType(content: Record<string, unknown> | undefined): string | undefined {
    return Object.keys(content ?? {}).find((type) => /^application\/([\w.-]+\+)?json\b/.test(type))
}
