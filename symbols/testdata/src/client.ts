export interface ClientOptions {
  baseURL: string;
}

export type Method = 'GET' | 'POST';

export class HttpClient {
  constructor(private readonly options: ClientOptions) {}

  request(method: Method, url: string): Promise<Response> {
    return fetch(this.options.baseURL + url, { method });
  }
}
