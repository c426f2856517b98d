import nodemailer from 'nodemailer';

export interface MailSettings {
  smtpUrl: string | undefined;
  from: string;
}

/** Sends a team's invitations by mail, through the SMTP server SMTP_URL names. */
export interface InvitationMailer {
  send(invitation: { to: string; address: string; teamName: string; invitedBy: string }): Promise<void>;
  close(): void;
}

/** The mailer of the settings, or undefined when no SMTP server is set (the address is shown only). */
export function invitationMailer(settings: MailSettings): InvitationMailer | undefined {
  if (!settings.smtpUrl) return undefined;
  const transport = nodemailer.createTransport(settings.smtpUrl, {
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
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
    close: () => transport.close(),
  };
}
