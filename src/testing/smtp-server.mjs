// A real SMTP server process for the tests (the smtp-server package): it accepts any sender
// and recipient without authentication on loopback, and prints each message it receives as
// one JSON line on stdout, once it has accepted it. Its first line is its port. With
// SMTP_ACCEPT_DELAY_MS, it takes that long over each message before accepting it, as a
// busy relay does: a message whose connection drops before then was never accepted.
import { SMTPServer } from 'smtp-server';

const delayMs = Number(process.env.SMTP_ACCEPT_DELAY_MS ?? 0);

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, session, callback) {
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('end', () => {
      const message = {
        from: session.envelope.mailFrom?.address,
        to: session.envelope.rcptTo.map((r) => r.address),
        raw: Buffer.concat(chunks).toString('utf8'),
      };
      const accept = () => {
        callback();
        process.stdout.write(`${JSON.stringify(message)}\n`);
      };
      if (delayMs > 0) setTimeout(accept, delayMs);
      else accept();
    });
  },
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
