/**
 * A throw-away self-signed certificate for the h2 (TLS) server, made with
 * node:crypto alone: an ECDSA P-256 key and a minimal X.509 v3 certificate
 * encoded by hand in DER. Node can sign but not build certificates, and the
 * packages that can (selfsigned and its ASN.1 libraries) would add some twenty
 * dependencies for what is about sixty lines of encoding. Nothing is written
 * to disk; a new key is made every time a server starts.
 */
import crypto from 'node:crypto';
import net from 'node:net';

/**
 * @typedef {object} SelfSigned
 * @property {string} key the private key, PKCS #8 PEM
 * @property {string} cert the certificate, PEM
 */

const DAY = 24 * 60 * 60 * 1000;

/**
 * Makes a certificate valid for localhost, 127.0.0.1 and ::1 (and `host`, when
 * it is another name or address), from an hour ago, for `days` days.
 * @param {{ host?: string, days?: number, now?: Date }} [options]
 * @returns {SelfSigned}
 */
export function selfSignedCertificate(options = {}) {
  const now = options.now ?? new Date();
  const names = ['localhost', '127.0.0.1', '::1'];
  if (options.host && !['0.0.0.0', '::'].includes(options.host) && !names.includes(options.host)) names.push(options.host);

  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const subject = sequence(set(sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from('localhost')))));
  const tbs = sequence(
    tlv(0xa0, integer(Buffer.from([2]))), // [0] version: v3, needed for extensions
    integer(crypto.randomBytes(16)),
    ecdsaWithSha256,
    subject, // issuer: self-signed, so the same name
    sequence(time(new Date(now.getTime() - DAY / 24)), time(new Date(now.getTime() + (options.days ?? 365) * DAY))),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, sequence(
      // subjectAltName: what TLS clients check the host against (not the CN).
      extension('2.5.29.17', sequence(...names.map(generalName))),
      // extKeyUsage: serverAuth.
      extension('2.5.29.37', sequence(oid('1.3.6.1.5.5.7.3.1'))),
    )),
  );
  const signature = crypto.sign('sha256', tbs, privateKey); // DER ECDSA-Sig-Value
  const certificate = sequence(tbs, ecdsaWithSha256, tlv(0x03, Buffer.from([0]), signature));
  const base64 = certificate.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return {
    key: /** @type {string} */ (privateKey.export({ type: 'pkcs8', format: 'pem' })),
    cert: `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----\n`,
  };
}

/**
 * A DER type-length-value.
 * @param {number} tag
 * @param {...Buffer} parts the contents, concatenated
 */
function tlv(tag, ...parts) {
  const body = Buffer.concat(parts);
  let length = Buffer.from([body.length]);
  if (body.length >= 0x80) {
    const bytes = [];
    for (let n = body.length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
    length = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

/** @param {...Buffer} parts */
const sequence = (...parts) => tlv(0x30, ...parts);
/** @param {...Buffer} parts */
const set = (...parts) => tlv(0x31, ...parts);

/**
 * A non-negative INTEGER from big-endian bytes (a leading zero keeps it positive).
 * @param {Buffer} bytes
 */
function integer(bytes) {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return tlv(0x02, trimmed[0] & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

/** @param {string} dotted e.g. 2.5.29.17 */
function oid(dotted) {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const chunk = [arc % 128];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) chunk.unshift(0x80 | (n % 128));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/**
 * UTCTime until 2049, GeneralizedTime after, as RFC 5280 requires.
 * @param {Date} date
 */
function time(date) {
  const compact = `${date.toISOString().slice(0, 19).replace(/[-:T]/g, '')}Z`;
  const year = date.getUTCFullYear();
  return year < 2050 ? tlv(0x17, Buffer.from(compact.slice(2))) : tlv(0x18, Buffer.from(compact));
}

/**
 * A non-critical extension.
 * @param {string} id
 * @param {Buffer} value its DER value
 */
function extension(id, value) {
  return sequence(oid(id), tlv(0x04, value));
}

/**
 * A GeneralName: iPAddress [7] for addresses, dNSName [2] for names.
 * @param {string} name
 */
function generalName(name) {
  if (net.isIPv4(name)) return tlv(0x87, Buffer.from(name.split('.').map(Number)));
  if (net.isIPv6(name)) return tlv(0x87, ipv6Bytes(name));
  return tlv(0x82, Buffer.from(name, 'ascii'));
}

/**
 * The 16 bytes of an IPv6 address (with `::` and an embedded IPv4 tail).
 * @param {string} address
 */
function ipv6Bytes(address) {
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1].split('.').map(Number);
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const bytes = Buffer.alloc(16);
  groups.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}
