import Foundation

/// A page of ListObjectsV2.
struct ListingPage {
    struct Entry {
        var key = ""
        var size: Int64 = 0
        var etag = ""
    }

    var objects: [Entry] = []
    /// With a delimiter: the folders (common prefixes) below the listed prefix, each ending in `/`.
    var folders: [String] = []
    var isTruncated = false
    var nextToken: String?
}

/// Reads ListObjectsV2 XML.
enum ListingParser {
    static func parse(_ data: Data) -> ListingPage {
        var page = ListingPage()
        var entry: ListingPage.Entry?
        var inFolder = false
        var text = ""
        for event in S3XML.events(data) {
            switch event {
            case .start(let name):
                text = ""
                if name == "Contents" { entry = ListingPage.Entry() }
                if name == "CommonPrefixes" { inFolder = true }
            case .text(let string):
                text += string
            case .end(let name):
                switch name {
                case "Key": entry?.key = text
                case "Size": entry?.size = Int64(text) ?? 0
                case "ETag": entry?.etag = S3Store.etag(text)
                case "Contents":
                    if let entry { page.objects.append(entry) }
                    entry = nil
                case "Prefix" where inFolder: page.folders.append(text)
                case "CommonPrefixes": inFolder = false
                case "IsTruncated": page.isTruncated = text == "true"
                case "NextContinuationToken": page.nextToken = text
                default: break
                }
            }
        }
        return page
    }
}
