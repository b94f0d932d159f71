import { randomBytes } from 'crypto'
import * as fs from 'fs'
import nodemailer, { Transporter } from 'nodemailer'
import * as path from 'path'
import { dataDir } from '../../common/config'
import { Logger } from '../../common/logger'
import { ExplorerEnv } from './config'
import { notConfigured } from './errors'

export interface Mail {
    to: string
    subject: string
    /** Plain text only: nothing a user typed is ever placed into HTML. */
    text: string
    /** For logs: what kind of mail this is (never its content, which carries codes). */
    purpose: 'verify_email' | 'reset_password' | 'watchlist_alert'
    /** Extra headers (List-Unsubscribe on alerts). */
    headers?: Record<string, string>
}

/**
 * Outgoing mail. With SMTP_URL, mail goes out through nodemailer over SMTP. Without it, outside
 * production, each message is written as an .eml file to DATA_DIR/mail (a developer opens it, or
 * reads the code in it) and a log line names the file; in production without SMTP_URL the routes
 * that send mail answer 503 rather than pretend.
 */
export class Mailer {
    private readonly transport?: Transporter
    private readonly outbox?: string

    constructor(private readonly env: ExplorerEnv, private readonly log: Logger) {
        if (env.SMTP_URL) {
            this.transport = nodemailer.createTransport(env.SMTP_URL)
        } else if (env.NODE_ENV !== 'production') {
            this.outbox = path.join(dataDir(env), 'mail')
            this.transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
        } else {
            log.warn('SMTP_URL is not set: sign-up, resend-code and forgot-password answer 503 until it is')
        }
    }

    /** Whether mail can go out at all (SMTP, or the development outbox). */
    get available(): boolean {
        return this.transport !== undefined
    }

    /** Throws a 503 when mail cannot be sent at all, before a route does anything it cannot finish. */
    ensureAvailable(): void {
        if (!this.transport) throw notConfigured('mail is not configured on this deployment (SMTP_URL)')
    }

    /**
     * Sends without making the caller wait: the answer of forgot-password must not take longer for a
     * registered address than for an unknown one. A failure is logged; the user can ask again.
     */
    sendInBackground(mail: Mail): void {
        this.send(mail).catch((err) => this.log.error({ err, purpose: mail.purpose }, 'mail could not be sent'))
    }

    async send(mail: Mail): Promise<void> {
        this.ensureAvailable()
        const info = await this.transport!.sendMail({ from: this.env.MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text, headers: mail.headers })
        if (this.outbox) {
            fs.mkdirSync(this.outbox, { recursive: true })
            const file = path.join(this.outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${mail.purpose}-${randomBytes(3).toString('hex')}.eml`)
            // Written aside and renamed: whoever watches the outbox never opens a message half-written.
            fs.writeFileSync(`${file}.part`, info.message as Buffer, { mode: 0o600 })
            fs.renameSync(`${file}.part`, file)
            this.log.info({ purpose: mail.purpose, file }, 'mail written to the development outbox (SMTP_URL not set)')
        } else {
            this.log.info({ purpose: mail.purpose, messageId: info.messageId }, 'mail sent')
        }
    }
}
