import * as fs from 'fs'
import * as path from 'path'

/** How the local networks keep their state in DATA_DIR: whole files replaced atomically, so a crash leaves the old or the new one. */

export function writeFileAtomic(file: string, text: string): void {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    const tmp = `${file}.${process.pid}.tmp`
    fs.writeFileSync(tmp, text)
    fs.renameSync(tmp, file)
}

/** The file's JSON, or undefined when there is no file. */
export function readJsonFile<T>(file: string): T | undefined {
    if (!fs.existsSync(file)) return undefined
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T
}
