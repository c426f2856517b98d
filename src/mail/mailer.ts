import nodemailer from 'nodemailer';

export interface MailSettings {
  smtpUrl: string | undefined;
  from: string;
  /** How long the server has to connect, greet and answer each step (default 20 s). */
  timeoutSeconds?: number;
}

/** Sends the service's mail through the SMTP server SMTP_URL names: invitations and the gate's codes. */
export interface Mailer {
  send(invitation: { to: string; address: string; teamName: string; invitedBy: string }): Promise<void>;
  sendCode(message: { to: string; code: string; roomName: string; minutes: number }): Promise<void>;
  /** A notification (a visit email, a digest), with the one-click unsubscribe headers (RFC 8058). */
  sendNotification(message: {
    to: string;
    subject: string;
    text: string;
    html: string;
    unsubscribeUrl: string;
    messageId: string;
  }): Promise<void>;
  /** The longest one send can take before it fails: a claim on a message to send must outlast it. */
  readonly longestSendMs: number;
  close(): void;
}

/** The mailer of the settings, or undefined when no SMTP server is set (an invitation's address is shown only). */
export function mailerOf(settings: MailSettings): Mailer | undefined {
  if (!settings.smtpUrl) return undefined;
  const timeoutMs = (settings.timeoutSeconds ?? 20) * 1000;
  const transport = nodemailer.createTransport({
    url: settings.smtpUrl,
    // A few connections kept open: notifications come in bursts.
    pool: true,
    maxConnections: 4,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  // A pooled connection the server closes while idle is replaced at the next send; each send
  // reports its own failure.
  transport.on('error', () => undefined);
  return {
    longestSendMs: 3 * timeoutMs,
    async send({ to, address, teamName, invitedBy }) {
      await transport.sendMail({
        from: settings.from,
        to,
        subject: `You are invited to ${teamName} on Deal Room`,
        text: [
          `${invitedBy} invited you to join ${teamName} on Deal Room.`,
          '',
          'Open this address to set your password and sign in (it works once, for 7 days):',
          address,
          '',
          'If you did not expect this, you can ignore this message.',
        ].join('\n'),
      });
    },
    async sendCode({ to, code, roomName, minutes }) {
      await transport.sendMail({
        from: settings.from,
        to,
        subject: `${code} is your code for ${roomName}`,
        text: [
          `Your verification code for ${roomName} is:`,
          '',
          code,
          '',
          `Type it on the page that asked for it. It works for ${minutes} minutes.`,
          '',
          'If you did not ask for it, you can ignore this message: nobody can open the room with your email without the code.',
        ].join('\n'),
      });
    },
    async sendNotification({ to, subject, text, html, unsubscribeUrl, messageId }) {
      await transport.sendMail({
        from: settings.from,
        to,
        subject,
        text,
        html,
        messageId,
        headers: {
          'List-Unsubscribe': `<${unsubscribeUrl}>`,
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          'Auto-Submitted': 'auto-generated',
        },
      });
    },
    close: () => transport.close(),
  };
}
