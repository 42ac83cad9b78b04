'use strict';
// The host objects a recipe can build: objects V8 hands to the IPC codec's
// host-object hook (API objects with embedder fields), which the codec copies
// shallowly, and the WebAssembly.Module, which V8 writes itself. Each is an
// expression of the generated code; keys are fixed, so every process builds
// the same value without generating one.

const privateKeyDer = 'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgHYX3YB0U3DC3TFxCQkzRDs+NoTcUwvoNbbbw8qdL/puh' +
  'RANCAASznxZgxUFFrD5WmjWQkoEw69Z7GAgqdjorf5Zny6nUbpvxD++zOV8O3j4zo0pqK5VGS+X+apkMTCW7aTde0f9G';
const certificateDer = 'MIIBbTCCAROgAwIBAgIUb7Y/LWJvOzJF6n7l4gCqxofwGa8wCgYIKoZIzj0EAwIwDDEKMAgGA1UEAwwBeDAeFw0yNjEx' +
  'MjMxMTU5MThaFw0zNjExMjAxMTU5MThaMAwxCjAIBgNVBAMMAXgwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASy0cK3VaxaofYd25qD8HJj' +
  'amPGYQ3PEpgv0LoIC9AjOCeIW2S4GiaPPh8rcH3l4iMUGwDgW8kBjZXDBmSqa/jeo1MwUTAdBgNVHQ4EFgQU79gCAniEXG7Kpqe+bSMU8GNj' +
  '1hswHwYDVR0jBBgwFoAU79gCAniEXG7Kpqe+bSMU8GNj1hswDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiEA6t4UFuiDzBvc' +
  'U31aixdydL0ZtNEwqq//OEFwpkWqaZgCIFtJIN1MBmRDRkiQppdh+AUd0O+pgIOSGYoSr+Zy1D0J';

const der = (b64) => `Buffer.from('${b64}', 'base64')`;
const privateKey = `require('node:crypto').createPrivateKey({ key: ${der(privateKeyDer)}, format: 'der', type: 'pkcs8' })`;

const hostTypes = {
  'secret-key': `require('node:crypto').createSecretKey(Buffer.alloc(16, 7))`,
  'private-key': privateKey,
  'public-key': `require('node:crypto').createPublicKey(${privateKey})`,
  x509: `new (require('node:crypto').X509Certificate)(${der(certificateDer)})`,
  // The 8-byte empty module: V8 writes nothing for it that it can read back.
  'wasm-module': `new WebAssembly.Module(Buffer.from('0061736d01000000', 'hex'))`,
};

module.exports = { hostTypes };
