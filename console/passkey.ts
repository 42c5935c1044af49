/**
 * A passkey assertion for the re-credential door (spec §5.6): the server's
 * challenge (base64url) signed by a discoverable credential of this origin,
 * every buffer answered base64url, as POST /v1/recredential takes it.
 */
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

export interface PasskeyAssertion {
  readonly credential_id: string;
  readonly client_data_json: string;
  readonly authenticator_data: string;
  readonly signature: string;
  readonly user_handle?: string;
}

export async function assertPasskey(challenge: string, rpId: string): Promise<PasskeyAssertion> {
  const credential = (await navigator.credentials.get({
    publicKey: { challenge: toBuffer(challenge), rpId, allowCredentials: [], userVerification: 'preferred' },
  })) as PublicKeyCredential | null;
  if (!credential) throw new Error('No passkey was chosen.');
  const response = credential.response as AuthenticatorAssertionResponse;
  return {
    credential_id: toText(credential.rawId),
    client_data_json: toText(response.clientDataJSON),
    authenticator_data: toText(response.authenticatorData),
    signature: toText(response.signature),
    ...(response.userHandle ? { user_handle: toText(response.userHandle) } : {}),
  };
}
