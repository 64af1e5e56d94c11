/// The OpenAPI document as a server without `--admin-token` serves it.
///
/// On disk (`openapi/openapi.yaml`) every admin operation declares the admin token,
/// `security: [{ adminBearer: [] }]` (on `GET /__admin/events` also
/// `{ adminAccessToken: [] }`): what a server started with the flag does. A server started
/// without it asks for nothing and ignores a token sent anyway, so each requirement that
/// names only those schemes is served as `security: []`, which in OpenAPI 3.1 (Operation
/// Object, `security`) declares the operation open: no scheme to satisfy, none to enforce.
/// A note saying so opens `info.description`. The rest of the document is served as it is.
///
/// Line by line, on the document's own layout: a `security:` key with a flow sequence on
/// one line, and `info.description` as a `|` block right under `info:`. A requirement that
/// names another scheme is left as it is.
enum OpenAdminSecurity {
    /// The security schemes that stand for the admin token (`components.securitySchemes`).
    static let adminSchemes: Set<Substring> = ["adminBearer", "adminAccessToken"]

    static let note = [
        "This server was started without `--admin-token`: its admin API is open, so every admin",
        "operation below declares `security: []` and the 401 `ADMIN_UNAUTHORIZED` it lists never",
        "comes. (The document on disk, which a server started with the flag serves, declares the token.)",
        "",
    ]

    static func apply(to document: String) -> String {
        var output: [Substring] = []
        var inInfo = false
        var noted = false
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            let indentation = line.prefix { $0 == " " }
            let content = line.dropFirst(indentation.count)
            if content.hasPrefix("security:"), asksForTheAdminTokenOnly(content.dropFirst("security:".count)) {
                output.append(indentation + "security: []")
                continue
            }
            output.append(line)
            if indentation.isEmpty { inInfo = content == "info:" }
            if inInfo, !noted, indentation.count == 2, content == "description: |" {
                output += note.map { $0.isEmpty ? "" : "    " + $0 }
                noted = true
            }
        }
        return output.joined(separator: "\n")
    }

    /// Whether a flow sequence of security requirements, such as
    /// `[{ adminBearer: [] }, { adminAccessToken: [] }]`, names admin schemes and no other.
    static func asksForTheAdminTokenOnly(_ requirements: Substring) -> Bool {
        let names = requirements.split { "[]{},: ".contains($0) }
        return !names.isEmpty && names.allSatisfy(adminSchemes.contains)
    }
}
