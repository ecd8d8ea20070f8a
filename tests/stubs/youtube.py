"""A local stub of the YouTube Data API v3 for the real googleapiclient.

It answers videos.list, playlistItems.list (paged by pageToken), playlists.list and
channels.list from the real responses in tests/data/api/youtube. The video corpus is
every video resource in those samples; the videos of the sample playlist pages that no
sample describes are served as videos.list would describe them, built from their
playlist item (title, description, channel, thumbnails) with a contentDetails duration,
except the ones in `missing` (deleted/private: videos.list omits them, as the real API
does). Unknown ids are omitted too; a bad key gets the real keyInvalid error.

commentThreads.list serves the real sample page (five threads of one video) for any
video: `order` relevance sorts by likes, `maxResults` trims, `textFormat=plainText` gives
plain `textDisplay`, `part=replies` adds the replies of threads that have some, and a
`pageToken` gets a last page. Videos in `comments_disabled` get the documented 403
commentsDisabled error, those in `missing` a 404 videoNotFound.

Routes for `enqueue`: videos, playlistItems, playlists, channels, commentThreads.
"""

from __future__ import annotations

import copy
import glob
from typing import Any

from tests.helpers import API_SAMPLES, api_sample
from tests.stubs.base import Close, Recorded, ScriptedStub, Status

__all__ = [
    "BAD_KEY",
    "CHANNEL",
    "COMMENTS_OFF",
    "Close",
    "PLAYLIST",
    "Status",
    "YouTubeStub",
    "quota_exceeded",
]

PLAYLIST = "PLOU2XLYxmsIKpaV8h0AGE05so0fAwwfTw"
SMALL_PLAYLIST = "PLOU2XLYxmsIJXsH2htG1g0NUjHGq62Q7i"
CHANNEL = "UC_x5XG1OV2P6uZZ5FSM9Ttw"
UPLOADS = "UU_x5XG1OV2P6uZZ5FSM9Ttw"
BAD_KEY = "bad-key"
COMMENTS_OFF = "CommentsOff"
"""A video (11 characters) whose owner turned comments off."""


def quota_exceeded() -> Status:
    return Status(403, api_sample("youtube/error_403_quotaExceeded.json"))


def _richness(item: dict[str, Any]) -> int:
    return sum(1 for part in ("snippet", "contentDetails", "statistics", "status") if part in item)


def _video_corpus() -> dict[str, dict[str, Any]]:
    corpus: dict[str, dict[str, Any]] = {}
    for path in sorted(glob.glob(str(API_SAMPLES / "youtube" / "video*.json"))):
        sample = api_sample("youtube/" + path.rsplit("/", 1)[1])
        for item in sample.get("items", [sample] if sample.get("kind") == "youtube#video" else []):
            if isinstance(item.get("id"), str) and _richness(item) >= _richness(
                corpus.get(item["id"], {})
            ):
                corpus[item["id"]] = item
    return corpus


def _video_from_playlist_item(item: dict[str, Any], index: int) -> dict[str, Any]:
    snippet = item["snippet"]
    video_id = snippet["resourceId"]["videoId"]
    minutes, seconds = 10 + index, (index * 7) % 60
    return {
        "kind": "youtube#video",
        "id": video_id,
        "snippet": {
            "publishedAt": snippet["publishedAt"],
            "channelId": snippet["channelId"],
            "title": snippet["title"],
            "description": snippet["description"],
            "thumbnails": snippet.get("thumbnails", {}),
            "channelTitle": snippet["channelTitle"],
            "liveBroadcastContent": "none",
        },
        "contentDetails": {
            "duration": f"PT{minutes}M{seconds}S",
            "definition": "hd",
            "caption": "false",
        },
        "statistics": {"viewCount": str(1000 * (index + 1)), "likeCount": str(10 * (index + 1))},
        "status": {"privacyStatus": "public", "embeddable": True},
    }


class YouTubeStub(ScriptedStub):
    def __init__(self) -> None:
        super().__init__()
        self.pages = {
            (PLAYLIST, None): api_sample("youtube/playlistItems_list.page1.json"),
            (PLAYLIST, "CAoQAA"): api_sample("youtube/playlistItems_list.page2.json"),
            (SMALL_PLAYLIST, None): api_sample(
                "youtube/playlistItems_list.snippet_contentDetails_status.json"
            ),
        }
        self.pages[(UPLOADS, None)] = self.pages[(PLAYLIST, None)]
        self.pages[(UPLOADS, "CAoQAA")] = self.pages[(PLAYLIST, "CAoQAA")]
        self.videos = _video_corpus()
        playlist_items = [i for page in self.pages.values() for i in page["items"]]
        self.missing = {playlist_items[-1]["snippet"]["resourceId"]["videoId"]}
        for index, item in enumerate(playlist_items):
            video_id = item["snippet"]["resourceId"]["videoId"]
            if video_id not in self.videos and video_id not in self.missing:
                self.videos[video_id] = _video_from_playlist_item(item, index)
        self.channels = {
            c["id"]: c for c in api_sample("youtube/channels_list.multi_full_parts.json")["items"]
        }
        self.comment_page = api_sample("youtube/commentThreads_list.by_video_page2.json")
        self.comments_disabled = {COMMENTS_OFF}

    def route(self, method: str, path: str, headers: dict[str, str]) -> str:
        if path.rstrip("/") == "/oembed":
            return "oembed"
        name = path.rstrip("/").rsplit("/", 1)[-1]
        return name if path.startswith("/youtube/v3/") else "unknown"

    @property
    def oembed_url(self) -> str:
        """Where YOUTUBE_OEMBED_URL points in the tests."""
        return f"{self.base_url}/oembed"

    def _oembed(self, record: Recorded) -> Any:
        """YouTube's oEmbed answer: no key; 404 (a bare "Not Found") for an unknown video."""
        url = record.query.get("url", "")
        video_id = url.rsplit("v=", 1)[-1] if "v=" in url else ""
        video = self.videos.get(video_id)
        if video is None or record.query.get("format") != "json":
            return Status(404, "Not Found")
        snippet = video["snippet"]
        return {
            "title": snippet["title"],
            "author_name": snippet["channelTitle"],
            "author_url": f"https://www.youtube.com/@{snippet['channelId']}",
            "type": "video",
            "version": "1.0",
            "provider_name": "YouTube",
            "provider_url": "https://www.youtube.com/",
            "thumbnail_url": f"https://i.ytimg.com/vi/{video_id}/hqdefault.jpg",
        }

    def default(self, record: Recorded) -> Any:
        if record.route == "oembed":
            return self._oembed(record)
        key = record.credentials.get("key")
        if not key:
            return Status(403, api_sample("youtube/error_403_permission_denied.json"))
        if key == BAD_KEY:
            return Status(400, api_sample("youtube/error_400_key_invalid.json"))
        handler = {
            "videos": self._videos,
            "playlistItems": self._playlist_items,
            "playlists": self._playlists,
            "channels": self._channels,
            "commentThreads": self._comment_threads,
        }.get(record.route)
        return handler(record) if handler else super().default(record)

    def _list(self, kind: str, items: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {
            "kind": f"youtube#{kind}ListResponse",
            "etag": '"stub"',
            "pageInfo": {"totalResults": len(items), "resultsPerPage": len(items)},
            "items": items,
            **extra,
        }

    def _videos(self, record: Recorded) -> dict[str, Any]:
        ids = [v for v in record.query.get("id", "").split(",") if v]
        return self._list("video", [copy.deepcopy(self.videos[v]) for v in ids if v in self.videos])

    def _playlist_items(self, record: Recorded) -> Any:
        key = (record.query.get("playlistId"), record.query.get("pageToken"))
        page = self.pages.get(key)
        if page is None:
            return Status(
                404,
                {
                    "error": {
                        "code": 404,
                        "message": "The playlist identified with the request's playlistId parameter cannot be found.",
                        "errors": [
                            {"domain": "youtube.playlistItem", "reason": "playlistNotFound"}
                        ],
                    }
                },
            )
        page = copy.deepcopy(page)
        for item in page["items"]:  # the real API returns contentDetails.videoId when asked for it
            item.setdefault("contentDetails", {"videoId": item["snippet"]["resourceId"]["videoId"]})
        return page

    def _playlists(self, record: Recorded) -> dict[str, Any]:
        playlist_id = record.query.get("id")
        pages = [page for (pid, _), page in self.pages.items() if pid == playlist_id]
        if not pages:
            return self._list("playlist", [])
        first = pages[0]["items"][0]["snippet"]
        return self._list(
            "playlist",
            [
                {
                    "kind": "youtube#playlist",
                    "id": playlist_id,
                    "snippet": {
                        "publishedAt": first["publishedAt"],
                        "channelId": first["channelId"],
                        "title": "Pittsburgh ML Summit '19"
                        if playlist_id == PLAYLIST
                        else "Google I/O'19 - I/O Live",
                        "description": "Talks from the event.",
                        "channelTitle": first["channelTitle"],
                    },
                    "contentDetails": {"itemCount": pages[0]["pageInfo"]["totalResults"]},
                }
            ],
        )

    def _channels(self, record: Recorded) -> dict[str, Any]:
        ids = [c for c in record.query.get("id", "").split(",") if c]
        return self._list(
            "channel", [copy.deepcopy(self.channels[c]) for c in ids if c in self.channels]
        )

    def _comment_threads(self, record: Recorded) -> Any:
        video_id = record.query.get("videoId", "")
        if video_id in self.comments_disabled:
            message = (
                'The video identified by the <code><a href="/youtube/v3/docs/commentThreads/list#videoId">'
                "videoId</a></code> parameter has disabled comments."
            )
            return Status(
                403,
                {
                    "error": {
                        "code": 403,
                        "message": message,
                        "errors": [
                            {
                                "message": message,
                                "domain": "youtube.commentThread",
                                "reason": "commentsDisabled",
                                "location": "videoId",
                                "locationType": "parameter",
                            }
                        ],
                    }
                },
            )
        if video_id in self.missing or not video_id:
            message = 'The video identified by the <code><a href="/youtube/v3/docs/commentThreads/list#videoId">videoId</a></code> parameter could not be found.'
            return Status(
                404,
                {
                    "error": {
                        "code": 404,
                        "message": message,
                        "errors": [
                            {
                                "message": message,
                                "domain": "youtube.commentThread",
                                "reason": "videoNotFound",
                            }
                        ],
                    }
                },
            )
        page = copy.deepcopy(self.comment_page)
        items = page["items"]
        if record.query.get("pageToken"):
            items = items[-2:]
            page.pop("nextPageToken", None)
        for item in items:
            item["snippet"]["videoId"] = video_id
            top = item["snippet"]["topLevelComment"]["snippet"]
            top["videoId"] = video_id
            if record.query.get("textFormat") == "plainText":
                top["textDisplay"] = top["textOriginal"]
            if "replies" in record.query.get("part", "") and item["snippet"]["totalReplyCount"]:
                item["replies"] = {
                    "comments": [
                        {
                            "kind": "youtube#comment",
                            "id": f"{item['id']}.reply{n}",
                            "snippet": {
                                **top,
                                "textDisplay": f"Reply {n} to {top['authorDisplayName']}",
                                "textOriginal": f"Reply {n} to {top['authorDisplayName']}",
                                "parentId": item["id"],
                                "likeCount": n,
                            },
                        }
                        for n in range(1, item["snippet"]["totalReplyCount"] + 1)
                    ]
                }
        if record.query.get("order", "time") == "relevance":
            items.sort(key=lambda i: -i["snippet"]["topLevelComment"]["snippet"]["likeCount"])
        items = items[: int(record.query.get("maxResults") or 20)]
        page["items"] = items
        page["pageInfo"] = {"totalResults": len(items), "resultsPerPage": len(items)}
        return page
