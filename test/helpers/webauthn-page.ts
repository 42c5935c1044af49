/**
 * WebAuthn ceremonies run in a browser page (Chromium through playwright-core,
 * with a virtual authenticator set up over CDP by the test): the shapes the
 * server's passkey routes take, and the function the page runs.
 */
export interface Registration {
  readonly credential_id: string;
  readonly client_data_json: string;
  readonly attestation_object: string;
  readonly transports: string[];
}

export interface Assertion {
  readonly credential_id: string;
  readonly client_data_json: string;
  readonly authenticator_data: string;
  readonly signature: string;
  readonly user_handle?: string;
}

export type Ceremony = { op: 'create'; options: any } | { op: 'get'; challenge: string; rpId: string };

/**
 * Runs in the page (serialised by playwright, so it may use nothing from this
 * module): decodes the base64url fields WebAuthn wants as buffers, runs the
 * ceremony, and answers every buffer base64url-encoded.
 */
export const inPage = async (ceremony: Ceremony): Promise<Registration | Assertion> => {
  const toBuffer = (text: string): ArrayBuffer => {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  };
  const toText = (buffer: ArrayBuffer): string => {
    let binary = '';
    for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  };
  const credentials = (globalThis as any).navigator.credentials;
  if (ceremony.op === 'create') {
    const options = ceremony.options;
    const publicKey = {
      ...options,
      challenge: toBuffer(options.challenge),
      user: { ...options.user, id: toBuffer(options.user.id) },
      excludeCredentials: (options.excludeCredentials ?? []).map((c: any) => ({ ...c, id: toBuffer(c.id) })),
    };
    const credential = await credentials.create({ publicKey });
    return {
      credential_id: toText(credential.rawId),
      client_data_json: toText(credential.response.clientDataJSON),
      attestation_object: toText(credential.response.attestationObject),
      transports: credential.response.getTransports?.() ?? [],
    };
  }
  const credential = await credentials.get({
    publicKey: { challenge: toBuffer(ceremony.challenge), rpId: ceremony.rpId, allowCredentials: [], userVerification: 'preferred' },
  });
  return {
    credential_id: toText(credential.rawId),
    client_data_json: toText(credential.response.clientDataJSON),
    authenticator_data: toText(credential.response.authenticatorData),
    signature: toText(credential.response.signature),
    ...(credential.response.userHandle ? { user_handle: toText(credential.response.userHandle) } : {}),
  };
};
